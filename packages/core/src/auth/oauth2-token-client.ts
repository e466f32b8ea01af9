import { AbortScope } from "../concurrency/abort-scope.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { CredentialError } from "../errors/auth-errors.js";
import { readBodyLimited, ResponseTooLargeError } from "../http/read-body-limited.js";
import type { OAuth2Auth } from "./auth-credential.js";
import type { OpenIdConnectWithConfig } from "./auth-scheme.js";

/** The client side of a token request: who asks, and how it proves it (RFC 6749 2.3). */
export interface OAuth2Client {
  clientId?: string;
  clientSecret?: string;
  /** `client_secret_basic` (default with a secret), `client_secret_post`, or `none` (public client). */
  tokenEndpointAuthMethod?: string;
}

/** Tokens from a token response, as `OAuth2Auth` fields (`expiresAt` in epoch seconds). */
export type OAuth2Tokens = Pick<
  OAuth2Auth,
  "accessToken" | "refreshToken" | "idToken" | "expiresAt" | "expiresIn" | "scope"
>;

export interface TokenRequestOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /**
   * Bound on each token request and discovery fetch, its body read included (default 30 000 ms):
   * an endpoint that never answers must not hold the tool call, and the run, forever.
   */
  timeoutMs?: number;
  /** Seconds since the epoch; for `expiresAt`. */
  now?: () => number;
}

/** Default of `timeoutMs`: token endpoints answer in well under a second. */
const DEFAULT_OAUTH2_TIMEOUT_MS = 30_000;

/** Token responses and discovery documents are a few KiB; a larger answer is broken or hostile. */
export const MAX_OAUTH2_RESPONSE_BYTES = 1024 * 1024;

/** `timeoutMs` checked (a positive number of milliseconds a timer can wait), or its default. */
export function oauth2TimeoutMs(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined) return DEFAULT_OAUTH2_TIMEOUT_MS;
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || timeoutMs > 2_147_483_647)
    throw new ConfigurationError(`timeoutMs: expected a positive number of milliseconds; got ${String(timeoutMs)}.`);
  return timeoutMs;
}

/**
 * One token request's signal: the caller's, aborted too after `timeoutMs`; `failure` tells the
 * time bound and the size limit from other failures; `done` drops the timer and listener.
 */
export function requestDeadline(signal: AbortSignal | undefined, timeoutMs: number) {
  const scope = AbortScope.under(signal).abortAfter(timeoutMs);
  return {
    signal: scope.signal,
    /** Whether `error` came from the time bound or the size limit (for messages). */
    failure(error: unknown): "timeout" | "too large" | undefined {
      if (scope.timedOut) return "timeout";
      return error instanceof ResponseTooLargeError ? "too large" : undefined;
    },
    done(): void {
      scope.release();
    },
  };
}

/**
 * POSTs a token request (form-encoded) and reads the token response. A refusal or a malformed
 * answer throws `CredentialError` with `errorCode` whose message carries only the provider's
 * `error` / `error_description`, never the request's secrets; so do no answer within
 * `timeoutMs` and an answer over `MAX_OAUTH2_RESPONSE_BYTES` (cancelled, not read to the end).
 */
export async function requestOAuth2Token(
  tokenEndpoint: string,
  params: Record<string, string | undefined>,
  client: OAuth2Client,
  errorCode: string,
  options: TokenRequestOptions = {},
): Promise<OAuth2Tokens> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") body.set(k, v);
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  const method = client.tokenEndpointAuthMethod ?? (client.clientSecret ? "client_secret_basic" : "none");
  if (method === "client_secret_basic" && client.clientId) {
    const user = encodeURIComponent(client.clientId);
    const pass = encodeURIComponent(client.clientSecret ?? "");
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
  } else if (client.clientId) {
    body.set("client_id", client.clientId);
    if (method === "client_secret_post" && client.clientSecret) body.set("client_secret", client.clientSecret);
  }
  const timeoutMs = oauth2TimeoutMs(options.timeoutMs);
  const doFetch = options.fetch ?? fetch;
  const deadline = requestDeadline(options.signal, timeoutMs);
  let response: Response | undefined;
  let text: string;
  try {
    response = await doFetch(tokenEndpoint, { method: "POST", headers, body, signal: deadline.signal });
    text = await readBodyLimited(response, { maxBytes: MAX_OAUTH2_RESPONSE_BYTES, signal: deadline.signal });
  } catch (error) {
    const failure = deadline.failure(error);
    const what =
      failure === "timeout"
        ? `did not answer within ${timeoutMs} ms`
        : failure === "too large"
          ? `answered more than ${MAX_OAUTH2_RESPONSE_BYTES} bytes`
          : response
            ? "broke off its answer"
            : "could not be reached";
    throw new CredentialError(errorCode, `Token endpoint ${safeUrl(tokenEndpoint)} ${what}.`, { cause: error });
  } finally {
    deadline.done();
  }
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  if (!response.ok || !json || typeof json.access_token !== "string") {
    const providerError = typeof json?.error === "string" ? json.error : undefined;
    const description = typeof json?.error_description === "string" ? json.error_description : undefined;
    const detail = providerError ? `: ${providerError}${description ? ` (${description})` : ""}` : "";
    throw new CredentialError(
      errorCode,
      `Token endpoint ${safeUrl(tokenEndpoint)} refused the request (HTTP ${response.status})${detail}.`,
    );
  }
  const now = options.now?.() ?? Date.now() / 1000;
  const tokens: OAuth2Tokens = { accessToken: json.access_token };
  if (typeof json.refresh_token === "string") tokens.refreshToken = json.refresh_token;
  if (typeof json.id_token === "string") tokens.idToken = json.id_token;
  if (typeof json.scope === "string") tokens.scope = json.scope;
  const expiresIn = typeof json.expires_in === "number" ? json.expires_in : Number(json.expires_in);
  if (Number.isFinite(expiresIn) && expiresIn > 0) {
    tokens.expiresIn = expiresIn;
    tokens.expiresAt = Math.floor(now + expiresIn);
  }
  return tokens;
}

/** The URL without query or credentials, for messages. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

/**
 * Reads an OpenID Connect discovery document (`.well-known/openid-configuration`) into an
 * `OpenIdConnectWithConfig` scheme, within `timeoutMs` (default 30 s) and
 * `MAX_OAUTH2_RESPONSE_BYTES`; any failure is a `CredentialError` `AUTH_DISCOVERY_FAILED`.
 */
export async function discoverOpenIdConfig(
  openIdConnectUrl: string,
  options: Pick<TokenRequestOptions, "fetch" | "signal" | "timeoutMs"> & { scopes?: string[] } = {},
): Promise<OpenIdConnectWithConfig> {
  const timeoutMs = oauth2TimeoutMs(options.timeoutMs);
  const doFetch = options.fetch ?? fetch;
  const deadline = requestDeadline(options.signal, timeoutMs);
  let doc: Record<string, unknown>;
  try {
    const response = await doFetch(openIdConnectUrl, {
      headers: { accept: "application/json" },
      signal: deadline.signal,
    });
    if (!response.ok) {
      // An unread body holds its connection until the collector finds it: let it go now.
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${response.status}`);
    }
    const parsed: unknown = JSON.parse(
      await readBodyLimited(response, { maxBytes: MAX_OAUTH2_RESPONSE_BYTES, signal: deadline.signal }),
    );
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
      throw new Error("the document is no JSON object");
    doc = parsed as Record<string, unknown>;
  } catch (error) {
    const failure = deadline.failure(error);
    const reason =
      failure === "timeout"
        ? `no answer within ${timeoutMs} ms`
        : failure === "too large"
          ? `the document exceeded ${MAX_OAUTH2_RESPONSE_BYTES} bytes`
          : error instanceof Error
            ? error.message
            : String(error);
    throw new CredentialError(
      "AUTH_DISCOVERY_FAILED",
      `OpenID Connect discovery at ${safeUrl(openIdConnectUrl)} failed: ${reason}.`,
      { cause: error },
    );
  } finally {
    deadline.done();
  }
  if (typeof doc.authorization_endpoint !== "string" || typeof doc.token_endpoint !== "string") {
    throw new CredentialError(
      "AUTH_DISCOVERY_FAILED",
      `OpenID Connect discovery at ${safeUrl(openIdConnectUrl)} names no authorization_endpoint or token_endpoint.`,
    );
  }
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined);
  return {
    type: "openIdConnect",
    openIdConnectUrl,
    authorizationEndpoint: doc.authorization_endpoint,
    tokenEndpoint: doc.token_endpoint,
    userinfoEndpoint: typeof doc.userinfo_endpoint === "string" ? doc.userinfo_endpoint : undefined,
    revocationEndpoint: typeof doc.revocation_endpoint === "string" ? doc.revocation_endpoint : undefined,
    tokenEndpointAuthMethodsSupported: strings(doc.token_endpoint_auth_methods_supported),
    grantTypesSupported: strings(doc.grant_types_supported),
    scopes: options.scopes ?? ["openid"],
  };
}
