import type { AgentEvent, FunctionCall, Part } from "./types.js";

/**
 * Adds a streamed event to the list shown in the chat (http-api.md 5.3): a partial event's
 * text is appended to the previous partial of the same author; the complete event then
 * replaces the accumulated partials. An event whose id is already listed (Python's artifact
 * split, 5.4) is merged into it. Returns a new array.
 */
export function applyEvent(events: readonly AgentEvent[], event: AgentEvent): AgentEvent[] {
  const next = [...events];
  const same = next.findIndex((e) => e.id === event.id && !e.partial);
  if (same >= 0 && !event.partial) {
    const old = next[same]!;
    next[same] = {
      ...old,
      ...event,
      content: event.content ?? old.content,
      actions: { ...old.actions, ...event.actions },
    };
    return next;
  }
  const last = next[next.length - 1];
  if (last?.partial && last.author === event.author) {
    if (event.partial) {
      next[next.length - 1] = {
        ...last,
        content: {
          role: last.content?.role ?? "model",
          parts: appendParts(last.content?.parts ?? [], event.content?.parts ?? []),
        },
      };
      return next;
    }
    next[next.length - 1] = event;
    return next;
  }
  next.push(event);
  return next;
}

/** Partial text parts extend the last text part of the same kind (thought or not). */
function appendParts(parts: readonly Part[], added: readonly Part[]): Part[] {
  const out = parts.map((p) => ({ ...p }));
  for (const part of added) {
    const tail = out[out.length - 1];
    if (part.text !== undefined && tail?.text !== undefined && Boolean(tail.thought) === Boolean(part.thought))
      tail.text += part.text;
    else out.push({ ...part });
  }
  return out;
}

/** Drops partial events left over when a stream ended without a complete event. */
export function settle(events: readonly AgentEvent[]): AgentEvent[] {
  return events.filter((e) => !e.partial);
}

/**
 * After a run the stored events replace what was streamed, but error events the server did not
 * store stay visible (after the stored ones), so a failure is not hidden by the reload.
 */
export function mergeStored(stored: readonly AgentEvent[], shown: readonly AgentEvent[]): AgentEvent[] {
  const ids = new Set(stored.map((e) => e.id));
  const extra = shown.filter((e) => !ids.has(e.id) && (e.errorCode !== undefined || e.errorMessage !== undefined));
  return [...stored, ...extra];
}

export interface PendingCall {
  /** The event that carried the call (sent back as `functionCallEventId`). */
  eventId: string;
  call: FunctionCall & { id: string };
  kind: "confirmation" | "credential" | "long-running";
}

/**
 * Calls waiting for the client (http-api.md 7): listed in `longRunningToolIds` and not yet
 * answered by the user. A tool's own interim response (authored by the agent, e.g.
 * `{status: "pending"}`) does not count as the answer.
 */
export function pendingCalls(events: readonly AgentEvent[]): PendingCall[] {
  const answered = new Set<string>();
  for (const e of events) {
    if (e.author !== "user") continue;
    for (const p of e.content?.parts ?? []) if (p.functionResponse?.id) answered.add(p.functionResponse.id);
  }
  const pending: PendingCall[] = [];
  for (const e of events) {
    if (e.partial) continue;
    const ids = new Set(e.longRunningToolIds ?? []);
    for (const p of e.content?.parts ?? []) {
      const call = p.functionCall;
      if (!call?.id || !ids.has(call.id) || answered.has(call.id)) continue;
      pending.push({
        eventId: e.id,
        call: { ...call, id: call.id },
        kind:
          call.name === "adk_request_confirmation"
            ? "confirmation"
            : call.name === "adk_request_credential"
              ? "credential"
              : "long-running",
      });
    }
  }
  return pending;
}

/** A typed long-running answer: a JSON object as is, anything else wrapped as `{result}` (as ADK's UI does). */
export function parseToolAnswer(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      const value: unknown = JSON.parse(trimmed);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // not JSON: send as text
    }
  }
  return { result: text };
}

/** The original call behind an `adk_request_confirmation` and its hint. */
export function confirmationDetails(call: FunctionCall): { tool?: string; args?: unknown; hint?: string } {
  const args = call.args ?? {};
  const original = args.originalFunctionCall as FunctionCall | undefined;
  const confirmation = args.toolConfirmation as { hint?: unknown } | undefined;
  return {
    ...(original?.name ? { tool: original.name, args: original.args ?? {} } : {}),
    ...(typeof confirmation?.hint === "string" && confirmation.hint ? { hint: confirmation.hint } : {}),
  };
}

/** Where this UI's OAuth popups land: the server's callback page posts the URL back here. */
export function oauthRedirectUri(origin: string): string {
  return `${origin}/dev-ui/oauth/callback`;
}

/** What an `adk_request_credential` asks for: an OAuth2 authorization (its URL) or a typed secret. */
export interface CredentialDetails {
  /** The scheme type: `oauth2`, `openIdConnect`, `apiKey`, `http`... */
  scheme: string;
  /** OAuth2 / OIDC: the authorization URL to open, its redirect_uri set to this UI's callback unless the tool fixed one. */
  authUri?: string;
  /** The host the user authorizes (shown on the card). */
  host?: string;
  /** The redirect URI the authorization server will send the user back to. */
  redirectUri?: string;
}

interface RequestedAuthConfig {
  authScheme?: { type?: string };
  exchangedAuthCredential?: { authType?: string; oauth2?: Record<string, unknown> };
}

export function credentialDetails(call: FunctionCall, origin: string): CredentialDetails {
  const config = (call.args?.authConfig ?? {}) as RequestedAuthConfig;
  const scheme = config.authScheme?.type ?? "oauth2";
  const authUri = config.exchangedAuthCredential?.oauth2?.authUri;
  if (typeof authUri !== "string") return { scheme };
  try {
    const url = new URL(authUri);
    // As ADK's dev UI does, the popup comes back to this UI; a redirect the tool fixed is kept
    // (its client is registered for it).
    if (!url.searchParams.get("redirect_uri")) url.searchParams.set("redirect_uri", oauthRedirectUri(origin));
    return { scheme, authUri: url.toString(), host: url.host, redirectUri: url.searchParams.get("redirect_uri")! };
  } catch {
    return { scheme };
  }
}

/** The answer to a credential request (what ADK's dev UI sends): the request's authConfig with the redirect filled in. */
export function oauthAnswer(call: FunctionCall, authResponseUri: string, redirectUri: string): Record<string, unknown> {
  const config = structuredClone(call.args?.authConfig ?? {}) as RequestedAuthConfig & Record<string, unknown>;
  const exchanged = (config.exchangedAuthCredential ??= { authType: "oauth2" });
  exchanged.oauth2 = { ...exchanged.oauth2, authResponseUri, redirectUri };
  return config;
}

/** The answer to a request for a typed secret (API key, bearer token). */
export function secretAnswer(call: FunctionCall, scheme: string, secret: string): Record<string, unknown> {
  const config = structuredClone(call.args?.authConfig ?? {}) as Record<string, unknown>;
  config.exchangedAuthCredential =
    scheme === "http"
      ? { authType: "http", http: { scheme: "bearer", credentials: { token: secret } } }
      : { authType: "apiKey", apiKey: secret };
  return config;
}
