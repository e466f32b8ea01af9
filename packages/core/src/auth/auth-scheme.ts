/** One OAuth2 flow of an OpenAPI `oauth2` security scheme. */
export interface OAuthFlow {
  authorizationUrl?: string;
  tokenUrl?: string;
  refreshUrl?: string;
  scopes?: Record<string, string>;
}

/** The flows an OAuth2 scheme offers (OpenAPI 3 `OAuthFlows`). */
export interface OAuthFlows {
  implicit?: OAuthFlow;
  password?: OAuthFlow;
  clientCredentials?: OAuthFlow;
  authorizationCode?: OAuthFlow;
}

/** OpenAPI 3 `apiKey` scheme. */
export interface ApiKeySecurityScheme {
  type: "apiKey";
  name: string;
  in: "query" | "header" | "cookie";
  description?: string;
}

/** OpenAPI 3 `http` scheme (`basic`, `bearer`, ...). */
export interface HttpSecurityScheme {
  type: "http";
  scheme: string;
  bearerFormat?: string;
  description?: string;
}

/** OpenAPI 3 `oauth2` scheme. */
export interface OAuth2SecurityScheme {
  type: "oauth2";
  flows: OAuthFlows;
  description?: string;
}

/** OpenAPI 3 `openIdConnect` scheme (endpoints found by discovery at `openIdConnectUrl`). */
export interface OpenIdSecurityScheme {
  type: "openIdConnect";
  openIdConnectUrl: string;
  description?: string;
}

/** An OpenID Connect scheme with its endpoints spelled out (ADK's `OpenIdConnectWithConfig`). */
export interface OpenIdConnectWithConfig {
  type: "openIdConnect";
  openIdConnectUrl?: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint?: string;
  revocationEndpoint?: string;
  tokenEndpointAuthMethodsSupported?: string[];
  grantTypesSupported?: string[];
  scopes?: string[];
  description?: string;
}

/** A service account scheme: no user interaction, the credential is exchanged for a token. */
export interface ServiceAccountScheme {
  type: "serviceAccount";
  description?: string;
}

/** How a resource authenticates its callers: OpenAPI's security schemes plus OIDC with config. */
export type AuthScheme =
  | ApiKeySecurityScheme
  | HttpSecurityScheme
  | OAuth2SecurityScheme
  | OpenIdSecurityScheme
  | OpenIdConnectWithConfig
  | ServiceAccountScheme;

/** OAuth2 grant types (ADK's `OAuthGrantType`). */
export const OAuthGrantType = {
  CLIENT_CREDENTIALS: "client_credentials",
  AUTHORIZATION_CODE: "authorization_code",
  IMPLICIT: "implicit",
  PASSWORD: "password",
} as const;
export type OAuthGrantTypeValue = (typeof OAuthGrantType)[keyof typeof OAuthGrantType];

/** The grant an OAuth2 scheme's flows call for (client credentials first, as ADK picks). */
export function getOAuthGrantTypeFromFlow(flows: OAuthFlows): OAuthGrantTypeValue | undefined {
  if (flows.clientCredentials) return OAuthGrantType.CLIENT_CREDENTIALS;
  if (flows.authorizationCode) return OAuthGrantType.AUTHORIZATION_CODE;
  if (flows.implicit) return OAuthGrantType.IMPLICIT;
  if (flows.password) return OAuthGrantType.PASSWORD;
  return undefined;
}

/** Endpoints and scopes of an OAuth2 or OIDC scheme, resolved for one grant. */
export interface OAuth2Endpoints {
  grantType: OAuthGrantTypeValue;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  scopes: string[];
}

/**
 * Where to send the user and where to redeem codes, for an `oauth2` scheme (its first usable
 * flow) or an OIDC scheme with config. `undefined` for schemes without OAuth2 endpoints and for
 * an OIDC scheme that only names its discovery URL (resolve it with `discoverOpenIdConfig`).
 */
export function oauth2Endpoints(scheme: AuthScheme): OAuth2Endpoints | undefined {
  if (scheme.type === "oauth2") {
    const grantType = getOAuthGrantTypeFromFlow(scheme.flows ?? {});
    if (grantType === OAuthGrantType.CLIENT_CREDENTIALS) {
      const flow = scheme.flows.clientCredentials!;
      return { grantType, tokenEndpoint: flow.tokenUrl, scopes: Object.keys(flow.scopes ?? {}) };
    }
    if (grantType === OAuthGrantType.AUTHORIZATION_CODE) {
      const flow = scheme.flows.authorizationCode!;
      return {
        grantType,
        authorizationEndpoint: flow.authorizationUrl,
        tokenEndpoint: flow.tokenUrl,
        scopes: Object.keys(flow.scopes ?? {}),
      };
    }
    return grantType ? { grantType, scopes: [] } : undefined;
  }
  if (scheme.type === "openIdConnect" && "authorizationEndpoint" in scheme && scheme.authorizationEndpoint) {
    const grants = scheme.grantTypesSupported;
    const grantType =
      grants &&
      !grants.includes(OAuthGrantType.AUTHORIZATION_CODE) &&
      grants.includes(OAuthGrantType.CLIENT_CREDENTIALS)
        ? OAuthGrantType.CLIENT_CREDENTIALS
        : OAuthGrantType.AUTHORIZATION_CODE;
    return {
      grantType,
      authorizationEndpoint: scheme.authorizationEndpoint,
      tokenEndpoint: scheme.tokenEndpoint,
      scopes: scheme.scopes ?? ["openid"],
    };
  }
  return undefined;
}
