import type { AuthConfig, AuthCredential, AuthScheme, ToolContext } from "@agentkit/core";
import { OpenApiSpecError } from "./openapi-error.js";
import { CredentialsHelper } from "./credentials-helper.js";
import type { ParsedOperation } from "./openapi-spec.js";

/**
 * Per-user credentials for an OpenAPI toolset: the credential configured for each scheme of the
 * spec's `components.securitySchemes` (by scheme name), or one scheme + credential for every
 * operation (ADK's `authScheme` / `authCredential`).
 */
export interface OpenApiSecurityConfig {
  schemes: Record<string, AuthScheme>;
  credentials: Record<string, AuthCredential>;
  /** Applies to every operation, whatever the spec says. */
  override?: { authScheme: AuthScheme; authCredential?: AuthCredential };
}

/** The auth configs one operation needs (one alternative of its security requirement), or none. */
export function operationAuthConfigs(op: ParsedOperation, security: OpenApiSecurityConfig): AuthConfig[] {
  if (security.override) {
    return [{ authScheme: security.override.authScheme, rawAuthCredential: security.override.authCredential }];
  }
  for (const requirement of op.security ?? []) {
    const names = Object.keys(requirement);
    if (names.length === 0) return []; // `{}`: this alternative needs no auth
    if (names.every((n) => security.schemes[n] && security.credentials[n])) {
      return names.map((n) => ({ authScheme: security.schemes[n]!, rawAuthCredential: security.credentials[n] }));
    }
  }
  return [];
}

/** Reads the spec's schemes into `AuthScheme`s (OpenAPI's shape; unknown types are skipped). */
export function toAuthSchemes(raw: Record<string, Record<string, unknown>>): Record<string, AuthScheme> {
  const out: Record<string, AuthScheme> = {};
  for (const [name, scheme] of Object.entries(raw)) {
    const type = scheme.type;
    if (type === "apiKey" || type === "http" || type === "oauth2" || type === "openIdConnect") {
      out[name] = structuredClone(scheme) as unknown as AuthScheme;
    }
  }
  return out;
}

/** Checks that every configured credential names a scheme of the spec. */
export function checkCredentialNames(
  credentials: Record<string, AuthCredential>,
  schemes: Record<string, AuthScheme>,
): void {
  for (const name of Object.keys(credentials)) {
    if (!schemes[name]) {
      const known = Object.keys(schemes);
      throw new OpenApiSpecError(
        `authCredentials names "${name}", which is not in the spec's components.securitySchemes (${known.length ? known.join(", ") : "none"}).`,
      );
    }
  }
}

/** What the tool does with the user's credentials: headers and query to add, or a pending request. */
export type UserAuthOutcome =
  | { kind: "ready"; apply: (url: URL, headers: Headers) => void; configs: AuthConfig[] }
  | { kind: "pending"; response: Record<string, unknown> };

const serviceAccountHelpers = new WeakMap<AuthCredential, CredentialsHelper>();

/**
 * The operation's credentials for the user of `toolContext`: each is looked up (refreshed or
 * exchanged when it needs no user); a missing one is requested from the user (the flow emits
 * `adk_request_credential` and re-runs the call once the user answered).
 */
export async function resolveUserAuth(configs: AuthConfig[], toolContext: ToolContext): Promise<UserAuthOutcome> {
  const appliers: ((url: URL, headers: Headers) => void)[] = [];
  let pending = false;
  for (const config of configs) {
    const credential =
      config.rawAuthCredential?.authType === "serviceAccount"
        ? await serviceAccountCredential(config.rawAuthCredential)
        : await toolContext.getCredential(config);
    if (!credential) {
      toolContext.requestCredential(config);
      pending = true;
      continue;
    }
    appliers.push((url, headers) => applyCredential(config.authScheme, credential, url, headers));
  }
  if (pending) {
    return {
      kind: "pending",
      response: { pending: true, message: "Waiting for the user to authorize this API; the call runs once they have." },
    };
  }
  return {
    kind: "ready",
    configs,
    apply: (url, headers) => {
      for (const a of appliers) a(url, headers);
    },
  };
}

/** A service account's token through google-auth-library (the Google tools' path), as a bearer credential. */
async function serviceAccountCredential(raw: AuthCredential): Promise<AuthCredential> {
  let helper = serviceAccountHelpers.get(raw);
  if (!helper) {
    const key = raw.serviceAccount?.serviceAccountCredential;
    if (!key) throw new OpenApiSpecError("A serviceAccount credential needs serviceAccount.serviceAccountCredential.");
    helper = CredentialsHelper.fromServiceAccountJson(
      JSON.stringify({
        type: "service_account",
        client_email: key.clientEmail,
        private_key: key.privateKey,
        private_key_id: key.privateKeyId,
        project_id: key.projectId,
        token_uri: key.tokenUri,
      }),
      { scopes: raw.serviceAccount?.scopes, ...(key.tokenUri ? { tokenUrl: key.tokenUri } : {}) },
    );
    serviceAccountHelpers.set(raw, helper);
  }
  return { authType: "http", http: { scheme: "bearer", credentials: { token: await helper.getAccessToken() } } };
}

/** Puts a credential where its scheme says: an API key's header/query/cookie, or `Authorization`. */
export function applyCredential(scheme: AuthScheme, credential: AuthCredential, url: URL, headers: Headers): void {
  if (scheme.type === "apiKey" && credential.apiKey) {
    if (scheme.in === "query") url.searchParams.set(scheme.name, credential.apiKey);
    else if (scheme.in === "cookie")
      headers.append("cookie", `${scheme.name}=${encodeURIComponent(credential.apiKey)}`);
    else headers.set(scheme.name, credential.apiKey);
    return;
  }
  const http = credential.http;
  if (http) {
    const { token, username, password } = http.credentials;
    if (http.scheme.toLowerCase() === "basic" && username !== undefined) {
      headers.set("authorization", `Basic ${Buffer.from(`${username}:${password ?? ""}`).toString("base64")}`);
    } else if (token) {
      headers.set("authorization", `Bearer ${token}`);
    }
    for (const [k, v] of Object.entries(http.additionalHeaders ?? {})) headers.set(k, v);
    return;
  }
  if (credential.oauth2?.accessToken) headers.set("authorization", `Bearer ${credential.oauth2.accessToken}`);
}

/** OAuth2 / OIDC tokens are per user and can be revoked: a 401 drops them and asks the user again. */
export function isUserToken(config: AuthConfig): boolean {
  const type = config.authScheme.type;
  return (type === "oauth2" || type === "openIdConnect") && config.rawAuthCredential?.authType !== "serviceAccount";
}
