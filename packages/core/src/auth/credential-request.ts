import { timingSafeEqual } from "node:crypto";
import { CallbackContext } from "../context/callback-context.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { ReadonlyContext } from "../context/readonly-context.js";
import type { FunctionCall, Part } from "../content/content.js";
import { CredentialError } from "../errors/auth-errors.js";
import { createEventActions } from "../events/event-actions.js";
import { createEvent, type Event } from "../events/event.js";
import { hasOwnKeys } from "../sessions/own-keys.js";
import { REQUEST_CREDENTIAL_FUNCTION_CALL_NAME } from "../flows/confirmation-names.js";
import { AuthCredentialTypes, type AuthCredential } from "./auth-credential.js";
import { redactAuthConfig, withCredentialKey, type AuthConfig, type KeyedAuthConfig } from "./auth-config.js";
import { OAuthGrantType } from "./auth-scheme.js";
import { resolveOAuth2Endpoints } from "./credential-exchangers.js";
import {
  defaultCredentialDependencies,
  takeRequestedAuthConfig,
  withoutClientSecret,
  type CredentialDependencies,
} from "./credential-manager.js";
import { pkceChallenge, randomUrlSafe } from "./pkce.js";

/** The credential service and exchangers of an invocation. */
export function credentialDependenciesOf(ctx: InvocationContext): CredentialDependencies {
  const defaults = defaultCredentialDependencies();
  return {
    credentialService: ctx.credentialService ?? defaults.credentialService,
    exchangers: ctx.credentialExchangers ?? defaults.exchangers,
    signal: ctx.signal,
  };
}

/** Where the flow keeps an authorization in progress (state, PKCE verifier, client): per request call. */
function pendingConfig(config: AuthConfig, requestCallId: string): KeyedAuthConfig {
  return {
    authScheme: config.authScheme,
    credentialKey: `${withCredentialKey(config).credentialKey}:pending:${requestCallId}`,
  };
}

/**
 * The event asking the client for credentials (http-api.md 7.3), for the calls whose tools
 * called `requestCredential`: one `adk_request_credential` call per request, with arguments
 * `{ functionCallId, authConfig }`, its id in `longRunningToolIds`, and the flow's record in
 * `actions.requestedAuthConfigs` keyed by the original call id.
 *
 * For an OAuth2 / OpenID Connect authorization-code scheme the flow builds the authorization URL
 * (`exchangedAuthCredential.oauth2.authUri`) with a fresh `state` and a PKCE S256 challenge, and
 * stores the pending authorization (client, state, verifier) in the credential service. What the
 * event carries is redacted: no client secret, no verifier.
 */
export async function buildCredentialRequestEvent(
  ctx: InvocationContext,
  agentName: string,
  calls: FunctionCall[],
  responseEvent: Event,
  newCallId: () => string,
): Promise<Event | undefined> {
  const requested = responseEvent.actions.requestedAuthConfigs;
  // Most tool responses request nothing: no context, actions or async work for them.
  if (!hasOwnKeys(requested)) return undefined;
  const deps = credentialDependenciesOf(ctx);
  const actions = createEventActions();
  const context = new CallbackContext(ctx, actions);
  const parts: Part[] = [];
  const ids: string[] = [];
  for (const [callId, recorded] of Object.entries(requested)) {
    if (!calls.some((c) => c.id === callId)) continue;
    const config = takeRequestedAuthConfig(ctx.session, callId) ?? withCredentialKey(recorded as AuthConfig);
    const requestCallId = newCallId();
    let clientConfig: AuthConfig;
    try {
      clientConfig = await prepareAuthorization(config, requestCallId, context, deps);
    } catch (error) {
      if (!(error instanceof CredentialError)) throw error;
      // The user cannot be asked (no authorization endpoint, discovery failed): the call reports it.
      answerWithError(responseEvent, callId, `Cannot ask the user to authorize (${error.code}): ${error.message}`);
      continue;
    }
    ids.push(requestCallId);
    actions.requestedAuthConfigs[callId] = clientConfig;
    parts.push({
      functionCall: {
        id: requestCallId,
        name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
        args: { functionCallId: callId, authConfig: structuredClone(clientConfig) },
      },
    });
  }
  if (parts.length === 0) return undefined;
  return createEvent({
    invocationId: ctx.invocationId,
    author: agentName,
    branch: ctx.branch,
    content: { role: "user", parts },
    longRunningToolIds: ids,
    actions,
  });
}

/** Replaces a call's interim response (not yet yielded) with an error, and drops its request record. */
function answerWithError(responseEvent: Event, callId: string, message: string): void {
  delete responseEvent.actions.requestedAuthConfigs[callId];
  for (const part of responseEvent.content?.parts ?? []) {
    if (part.functionResponse?.id === callId) part.functionResponse.response = { error: message };
  }
}

async function prepareAuthorization(
  config: KeyedAuthConfig,
  requestCallId: string,
  context: CallbackContext,
  deps: CredentialDependencies,
): Promise<AuthConfig> {
  const scheme = config.authScheme;
  const raw = config.rawAuthCredential;
  if (scheme.type !== "oauth2" && scheme.type !== "openIdConnect") return redactAuthConfig(config);
  const prepared = config.exchangedAuthCredential?.oauth2?.authUri;
  if (prepared) return preparedByTool(config, prepared, requestCallId, context, deps);
  const endpoints = await resolveOAuth2Endpoints(scheme, { signal: deps.signal });
  if (!endpoints || endpoints.grantType !== OAuthGrantType.AUTHORIZATION_CODE || !endpoints.authorizationEndpoint) {
    throw new CredentialError(
      "AUTH_SCHEME_UNSUPPORTED",
      `A user can only be asked to authorize an authorization-code flow; this ${scheme.type} scheme has none.`,
    );
  }
  const state = randomUrlSafe();
  const codeVerifier = randomUrlSafe();
  const url = new URL(endpoints.authorizationEndpoint);
  url.searchParams.set("response_type", "code");
  if (raw?.oauth2?.clientId) url.searchParams.set("client_id", raw.oauth2.clientId);
  if (endpoints.scopes.length > 0) url.searchParams.set("scope", endpoints.scopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", pkceChallenge(codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  if (raw?.oauth2?.redirectUri) url.searchParams.set("redirect_uri", raw.oauth2.redirectUri);
  if (raw?.oauth2?.audience) url.searchParams.set("audience", raw.oauth2.audience);
  const authUri = url.toString();
  const authType = raw?.authType ?? AuthCredentialTypes.OAUTH2;
  const pending: AuthCredential = {
    authType,
    oauth2: { ...raw?.oauth2, state, codeVerifier, authUri },
  };
  await deps.credentialService.saveCredential(
    { ...pendingConfig(config, requestCallId), exchangedAuthCredential: pending },
    context,
  );
  return redactAuthConfig({
    ...config,
    exchangedAuthCredential: {
      authType,
      oauth2: { clientId: raw?.oauth2?.clientId, authUri, state, redirectUri: raw?.oauth2?.redirectUri },
    },
  });
}

/**
 * An authorization the tool started itself (e.g. the MCP SDK's, which keeps its own PKCE verifier
 * and client registration): the flow records the URL's `state`, and on the answer checks it and
 * stores the authorization code (`oauth2.authCode`) under the config's key for the tool to redeem.
 */
async function preparedByTool(
  config: KeyedAuthConfig,
  authUri: string,
  requestCallId: string,
  context: CallbackContext,
  deps: CredentialDependencies,
): Promise<AuthConfig> {
  let state = config.exchangedAuthCredential?.oauth2?.state;
  try {
    state ??= new URL(authUri).searchParams.get("state") ?? undefined;
  } catch {
    throw new CredentialError("AUTH_RESPONSE_INVALID", "The tool's authorization URL is not a URL.");
  }
  if (!state) {
    throw new CredentialError("AUTH_SCHEME_UNSUPPORTED", "A tool-prepared authorization URL must carry a state.");
  }
  const authType = config.exchangedAuthCredential?.authType ?? AuthCredentialTypes.OAUTH2;
  const redirectUri = config.exchangedAuthCredential?.oauth2?.redirectUri;
  await deps.credentialService.saveCredential(
    { ...pendingConfig(config, requestCallId), exchangedAuthCredential: { authType, oauth2: { state, authUri } } },
    context,
  );
  return redactAuthConfig({
    ...config,
    exchangedAuthCredential: { authType, oauth2: { authUri, state, ...(redirectUri ? { redirectUri } : {}) } },
  });
}

/**
 * Completes an authorization the flow asked for: `record` is the flow's own record of the request
 * (from its event), `response` what the client sent back (ADK's dev UI: the auth config with
 * `exchangedAuthCredential.oauth2.authResponseUri` and `redirectUri`). For OAuth2 the pending
 * authorization is consumed (so a replayed answer finds nothing), the `state` compared, the code
 * redeemed with the PKCE verifier and the tokens stored under the record's `credentialKey`.
 * Other schemes store the credential the user entered. Throws `CredentialError` on any failure;
 * nothing is stored then.
 */
export async function completeAuthorization(
  record: AuthConfig,
  requestCallId: string,
  response: Record<string, unknown> | undefined,
  context: CallbackContext,
  deps: CredentialDependencies,
): Promise<void> {
  const config = withCredentialKey(record);
  const answered = (response?.exchangedAuthCredential ?? undefined) as AuthCredential | undefined;
  const scheme = config.authScheme;
  if (scheme.type !== "oauth2" && scheme.type !== "openIdConnect") {
    if (!answered || typeof answered !== "object" || !hasValue(answered, scheme.type)) {
      throw new CredentialError("AUTH_RESPONSE_INVALID", `The answer carries no ${scheme.type} credential.`);
    }
    const credential: AuthCredential = { authType: answered.authType };
    if (answered.apiKey !== undefined) credential.apiKey = String(answered.apiKey);
    if (answered.http) credential.http = answered.http;
    await deps.credentialService.saveCredential({ ...config, exchangedAuthCredential: credential }, context);
    return;
  }

  const pendingKey = pendingConfig(config, requestCallId);
  const pending = await deps.credentialService.loadCredential(pendingKey, context);
  if (!pending?.oauth2?.state) {
    throw new CredentialError(
      "AUTH_RESPONSE_INVALID",
      "No authorization is pending for this request (it was already completed or never started).",
    );
  }
  // Single use: whatever happens next, this authorization cannot be completed twice.
  await deps.credentialService.deleteCredential(pendingKey, context);

  const answer = answered?.oauth2 ?? {};
  let code = typeof answer.authCode === "string" ? answer.authCode : undefined;
  let state = typeof answer.state === "string" ? answer.state : undefined;
  if (typeof answer.authResponseUri === "string") {
    let url: URL;
    try {
      url = new URL(answer.authResponseUri);
    } catch {
      throw new CredentialError("AUTH_RESPONSE_INVALID", "authResponseUri is not a URL.");
    }
    const providerError = url.searchParams.get("error");
    if (providerError) {
      const description = url.searchParams.get("error_description");
      throw new CredentialError(
        "AUTH_RESPONSE_INVALID",
        `The authorization server answered ${providerError}${description ? ` (${description})` : ""}.`,
      );
    }
    code = url.searchParams.get("code") ?? undefined;
    state = url.searchParams.get("state") ?? undefined;
  }
  if (!code) throw new CredentialError("AUTH_RESPONSE_INVALID", "The answer carries no authorization code.");
  if (!state || !sameString(state, pending.oauth2.state)) {
    throw new CredentialError(
      "AUTH_STATE_MISMATCH",
      "The authorization response's state does not match the request's: it was not issued for this request.",
    );
  }
  const redirectUri = typeof answer.redirectUri === "string" ? answer.redirectUri : pending.oauth2.redirectUri;
  if (!pending.oauth2.codeVerifier) {
    // Prepared by the tool: it redeems the code itself.
    await deps.credentialService.saveCredential(
      {
        ...config,
        exchangedAuthCredential: { authType: pending.authType, oauth2: { authCode: code, state, redirectUri } },
      },
      context,
    );
    return;
  }
  const exchanger = deps.exchangers.exchangerFor(scheme);
  const exchanged = await exchanger?.exchange({
    authScheme: scheme,
    credential: { ...pending, oauth2: { ...pending.oauth2, authCode: code, redirectUri } },
    signal: deps.signal,
  });
  if (!exchanged?.oauth2?.accessToken) {
    throw new CredentialError("CREDENTIAL_EXCHANGE_FAILED", "The authorization code was not exchanged for a token.");
  }
  await deps.credentialService.saveCredential(
    { ...config, exchangedAuthCredential: withoutClientSecret(exchanged) },
    context,
  );
}

function hasValue(credential: AuthCredential, schemeType: string): boolean {
  if (schemeType === "apiKey") return typeof credential.apiKey === "string" && credential.apiKey !== "";
  if (schemeType === "http") {
    const c = credential.http?.credentials;
    return Boolean(c && (c.token || c.username || c.password));
  }
  return false;
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The credential service and exchangers behind a tool's or callback's context. */
export function credentialDependenciesOfContext(context: ReadonlyContext): CredentialDependencies {
  return credentialDependenciesOf((context as unknown as { invocationContext: InvocationContext }).invocationContext);
}
