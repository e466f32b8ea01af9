import { CredentialError } from "../errors/auth-errors.js";
import { AuthCredentialTypes, type AuthCredential } from "./auth-credential.js";
import type { AuthScheme, OAuth2Endpoints } from "./auth-scheme.js";
import { OAuthGrantType, oauth2Endpoints } from "./auth-scheme.js";
import {
  discoverOpenIdConfig,
  oauth2TimeoutMs,
  requestOAuth2Token,
  type TokenRequestOptions,
} from "./oauth2-token-client.js";

/** What an exchanger or refresher is given. */
export interface CredentialExchangeInput {
  authScheme: AuthScheme;
  /** The credential to exchange: the raw one, or one carrying an authorization code. */
  credential: AuthCredential;
  signal?: AbortSignal;
}

/**
 * Turns a credential into a usable one (ADK's `BaseCredentialExchanger`): a client-credentials
 * client into a token, an authorization code into tokens, a service account key into a token.
 * Returns `undefined` when the user must act first (an authorization-code client without a code).
 */
export interface CredentialExchanger {
  exchange(input: CredentialExchangeInput): Promise<AuthCredential | undefined>;
}

/** Renews a credential before it expires (ADK's `BaseCredentialRefresher`). */
export interface CredentialRefresher {
  isRefreshNeeded(input: CredentialExchangeInput): boolean;
  /** The renewed credential; throws `CredentialError` when the provider refuses. */
  refresh(input: CredentialExchangeInput): Promise<AuthCredential>;
}

/**
 * Exchangers and refreshers by scheme type (`oauth2`, `openIdConnect`, `serviceAccount`, `apiKey`,
 * `http`, or a type of your own). The defaults handle OAuth2 and OpenID Connect; register a
 * service-account exchanger (e.g. one on google-auth-library) for `serviceAccount`.
 */
export class CredentialExchangerRegistry {
  private readonly exchangers = new Map<string, CredentialExchanger>();
  private readonly refreshers = new Map<string, CredentialRefresher>();

  /** A registry with the OAuth2 / OpenID Connect exchanger and refresher, both given `options` (`timeoutMs`...). */
  static withDefaults(options: TokenRequestOptions = {}): CredentialExchangerRegistry {
    const registry = new CredentialExchangerRegistry();
    const exchanger = new OAuth2CredentialExchanger(options);
    const refresher = new OAuth2CredentialRefresher(options);
    for (const type of ["oauth2", "openIdConnect"]) {
      registry.registerExchanger(type, exchanger);
      registry.registerRefresher(type, refresher);
    }
    return registry;
  }

  registerExchanger(schemeType: string, exchanger: CredentialExchanger): this {
    this.exchangers.set(schemeType, exchanger);
    return this;
  }

  registerRefresher(schemeType: string, refresher: CredentialRefresher): this {
    this.refreshers.set(schemeType, refresher);
    return this;
  }

  exchangerFor(scheme: AuthScheme): CredentialExchanger | undefined {
    return this.exchangers.get(scheme.type);
  }

  refresherFor(scheme: AuthScheme): CredentialRefresher | undefined {
    return this.refreshers.get(scheme.type);
  }
}

/** OAuth2/OIDC endpoints of a scheme, discovering an OIDC scheme's when only its URL is given. */
export async function resolveOAuth2Endpoints(
  scheme: AuthScheme,
  options: Pick<TokenRequestOptions, "fetch" | "signal" | "timeoutMs"> = {},
): Promise<OAuth2Endpoints | undefined> {
  const direct = oauth2Endpoints(scheme);
  if (direct) return direct;
  if (scheme.type === "openIdConnect" && scheme.openIdConnectUrl) {
    const scopes = "scopes" in scheme ? scheme.scopes : undefined;
    return oauth2Endpoints(await discoverOpenIdConfig(scheme.openIdConnectUrl, { ...options, scopes }));
  }
  return undefined;
}

/**
 * OAuth2 / OIDC exchange: client credentials get a token at once; an authorization code
 * (`oauth2.authCode`, with its `codeVerifier` and `redirectUri`) is redeemed; an authorization-code
 * client without a code needs the user (`undefined`). Options: `fetch`, `timeoutMs` (each token
 * request and discovery fetch, default 30 000; past it a `CredentialError`), `now`. Answers over
 * 1 MiB are refused (`CredentialError`) without being read to the end.
 */
export class OAuth2CredentialExchanger implements CredentialExchanger {
  constructor(private readonly options: TokenRequestOptions = {}) {
    oauth2TimeoutMs(options.timeoutMs);
  }

  async exchange({ authScheme, credential, signal }: CredentialExchangeInput): Promise<AuthCredential | undefined> {
    const oauth2 = credential.oauth2;
    if (!oauth2) return undefined;
    if (oauth2.accessToken) return credential;
    const endpoints = await resolveOAuth2Endpoints(authScheme, {
      fetch: this.options.fetch,
      signal,
      timeoutMs: this.options.timeoutMs,
    });
    if (!endpoints?.tokenEndpoint) {
      throw new CredentialError("AUTH_SCHEME_UNSUPPORTED", `The ${authScheme.type} scheme names no token endpoint.`);
    }
    const opts = { ...this.options, signal };
    if (oauth2.authCode) {
      const tokens = await requestOAuth2Token(
        endpoints.tokenEndpoint,
        {
          grant_type: "authorization_code",
          code: oauth2.authCode,
          redirect_uri: oauth2.redirectUri,
          code_verifier: oauth2.codeVerifier,
        },
        oauth2,
        "CREDENTIAL_EXCHANGE_FAILED",
        opts,
      );
      return tokenCredential(credential, tokens);
    }
    if (endpoints.grantType === OAuthGrantType.CLIENT_CREDENTIALS) {
      const tokens = await requestOAuth2Token(
        endpoints.tokenEndpoint,
        { grant_type: "client_credentials", scope: endpoints.scopes.join(" ") || undefined, audience: oauth2.audience },
        oauth2,
        "CREDENTIAL_EXCHANGE_FAILED",
        opts,
      );
      return tokenCredential(credential, tokens);
    }
    return undefined;
  }
}

/**
 * Refreshes OAuth2 tokens that expire within `marginSeconds` (default 60). `fetch`, `timeoutMs`
 * (default 30 000) and the 1 MiB answer limit are as for `OAuth2CredentialExchanger`.
 */
export class OAuth2CredentialRefresher implements CredentialRefresher {
  constructor(private readonly options: TokenRequestOptions & { marginSeconds?: number } = {}) {
    oauth2TimeoutMs(options.timeoutMs);
  }

  isRefreshNeeded({ credential }: CredentialExchangeInput): boolean {
    const expiresAt = credential.oauth2?.expiresAt;
    if (expiresAt === undefined || !credential.oauth2?.accessToken) return false;
    const now = this.options.now?.() ?? Date.now() / 1000;
    return expiresAt <= now + (this.options.marginSeconds ?? 60);
  }

  async refresh({ authScheme, credential, signal }: CredentialExchangeInput): Promise<AuthCredential> {
    const oauth2 = credential.oauth2;
    if (!oauth2?.refreshToken) {
      throw new CredentialError("CREDENTIAL_REFRESH_FAILED", "The access token expired and there is no refresh token.");
    }
    const endpoints = await resolveOAuth2Endpoints(authScheme, {
      fetch: this.options.fetch,
      signal,
      timeoutMs: this.options.timeoutMs,
    });
    if (!endpoints?.tokenEndpoint) {
      throw new CredentialError("AUTH_SCHEME_UNSUPPORTED", `The ${authScheme.type} scheme names no token endpoint.`);
    }
    const tokens = await requestOAuth2Token(
      endpoints.tokenEndpoint,
      { grant_type: "refresh_token", refresh_token: oauth2.refreshToken },
      oauth2,
      "CREDENTIAL_REFRESH_FAILED",
      { ...this.options, signal },
    );
    // Providers may omit the refresh token when it does not rotate: keep the old one.
    return tokenCredential(credential, { refreshToken: oauth2.refreshToken, ...tokens });
  }
}

function tokenCredential(base: AuthCredential, tokens: Partial<NonNullable<AuthCredential["oauth2"]>>): AuthCredential {
  const oauth2 = { ...base.oauth2 };
  // One-time values are spent once tokens exist.
  delete oauth2.authCode;
  delete oauth2.codeVerifier;
  delete oauth2.authResponseUri;
  delete oauth2.state;
  delete oauth2.authUri;
  for (const [k, v] of Object.entries(tokens)) if (v !== undefined) (oauth2 as Record<string, unknown>)[k] = v;
  return {
    authType: base.authType === AuthCredentialTypes.OPEN_ID_CONNECT ? base.authType : AuthCredentialTypes.OAUTH2,
    oauth2,
  };
}
