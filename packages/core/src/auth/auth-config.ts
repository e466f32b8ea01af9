import { createHash } from "node:crypto";
import type { AuthCredential, OAuth2Auth } from "./auth-credential.js";
import type { AuthScheme } from "./auth-scheme.js";

/**
 * What a tool needs to authenticate (ADK's `AuthConfig`): the scheme, the credential the
 * developer configured (`rawAuthCredential`: an API key, an OAuth2 client...), the credential
 * obtained from it (`exchangedAuthCredential`: tokens), and the key it is stored under.
 */
export interface AuthConfig {
  authScheme: AuthScheme;
  rawAuthCredential?: AuthCredential;
  exchangedAuthCredential?: AuthCredential;
  /** Storage key of the credential; derived from the scheme and raw credential when not given. */
  credentialKey?: string;
}

/** An `AuthConfig` whose `credentialKey` is set. */
export type KeyedAuthConfig = AuthConfig & { credentialKey: string };

/** The arguments of an `adk_request_credential` call (ADK's `AuthToolArguments`). */
export interface AuthToolArguments {
  functionCallId: string;
  authConfig: AuthConfig;
}

/**
 * The config with its `credentialKey` set: the given one, or `adk_<scheme type>_<hash>` over the
 * scheme and the raw credential's non-secret identity (client id, scopes), so the same tool asks
 * for the same stored credential every run and two clients never share one.
 */
export function withCredentialKey(config: AuthConfig): KeyedAuthConfig {
  if (config.credentialKey) return config as KeyedAuthConfig;
  const raw = config.rawAuthCredential;
  const identity = {
    scheme: config.authScheme,
    type: raw?.authType,
    clientId: raw?.oauth2?.clientId,
    audience: raw?.oauth2?.audience,
    resourceRef: raw?.resourceRef,
    serviceAccount: raw?.serviceAccount?.serviceAccountCredential?.clientEmail,
  };
  const hash = createHash("sha256").update(stableJson(identity)).digest("hex").slice(0, 16);
  return { ...config, credentialKey: `adk_${config.authScheme.type}_${hash}` };
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

const SECRET_OAUTH2_FIELDS = [
  "clientSecret",
  "codeVerifier",
  "authCode",
  "accessToken",
  "refreshToken",
  "idToken",
  "authResponseUri",
] as const satisfies readonly (keyof OAuth2Auth)[];

/**
 * The credential without secret values (client secret, tokens, codes, PKCE verifier, API key,
 * passwords, private keys): what may appear in an event, a log line or a trace. Non-secret
 * fields (client id, auth URI, state, redirect URI, expiry) are kept.
 */
export function redactCredential(credential: AuthCredential | undefined): AuthCredential | undefined {
  if (!credential) return undefined;
  const out: AuthCredential = { authType: credential.authType };
  if (credential.resourceRef !== undefined) out.resourceRef = credential.resourceRef;
  if (credential.oauth2) {
    const oauth2: OAuth2Auth = { ...credential.oauth2 };
    for (const field of SECRET_OAUTH2_FIELDS) delete oauth2[field];
    out.oauth2 = oauth2;
  }
  if (credential.http) {
    out.http = { scheme: credential.http.scheme, credentials: {} };
    if (credential.http.credentials.username !== undefined)
      out.http.credentials.username = credential.http.credentials.username;
  }
  if (credential.serviceAccount) {
    const { serviceAccountCredential, ...rest } = credential.serviceAccount;
    out.serviceAccount = { ...rest };
    if (serviceAccountCredential) {
      out.serviceAccount.serviceAccountCredential = {
        ...serviceAccountCredential,
        privateKey: "",
        privateKeyId: "",
      };
    }
  }
  return out;
}

/** The config without secret values (see `redactCredential`). */
export function redactAuthConfig(config: AuthConfig): AuthConfig {
  const out: AuthConfig = { authScheme: structuredClone(config.authScheme) };
  if (config.credentialKey !== undefined) out.credentialKey = config.credentialKey;
  const raw = redactCredential(config.rawAuthCredential);
  if (raw) out.rawAuthCredential = raw;
  const exchanged = redactCredential(config.exchangedAuthCredential);
  if (exchanged) out.exchangedAuthCredential = exchanged;
  return out;
}
