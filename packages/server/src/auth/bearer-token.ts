import type { IncomingMessage } from "node:http";
import { AuthenticationError } from "./auth-errors.js";

/**
 * Browsers cannot set headers on a WebSocket, so a `/run_live` client may send its token as a
 * sub-protocol instead: `agentkit.bearer.<base64url of the token>`, offered next to
 * `agentkit` (the protocol the server then selects, so the token is never echoed back).
 */
export const WEBSOCKET_BEARER_PREFIX = "agentkit.bearer.";
export const WEBSOCKET_PROTOCOL = "agentkit";

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * The bearer token a request carries: `Authorization: Bearer <token>`, or, on a WebSocket
 * upgrade without that header, the `agentkit.bearer.` sub-protocol. Undefined when the request
 * carries no credentials; an `Authorization` header of another form is `malformed`.
 */
export function bearerTokenOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = BEARER.exec(header);
    if (!match) throw new AuthenticationError("malformed", "the Authorization header is not `Bearer <token>`");
    return match[1];
  }
  if (req.headers.upgrade?.toLowerCase() !== "websocket") return undefined;
  const offered = webSocketProtocols(req).find((p) => p.startsWith(WEBSOCKET_BEARER_PREFIX));
  if (offered === undefined) return undefined;
  const encoded = offered.slice(WEBSOCKET_BEARER_PREFIX.length);
  const token = /^[A-Za-z0-9_-]+$/.test(encoded) ? Buffer.from(encoded, "base64url").toString("utf8") : "";
  if (token === "" || /\s/.test(token))
    throw new AuthenticationError("malformed", "the WebSocket bearer sub-protocol is not base64url of a token");
  return token;
}

/** The sub-protocols a WebSocket upgrade offers, in order. */
export function webSocketProtocols(req: IncomingMessage): string[] {
  const raw = req.headers["sec-websocket-protocol"];
  const joined = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
  return joined
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * The sub-protocol the server answers with when auth is on: the first offered one that is not
 * a token, or none. A token is never selected, so it is never sent back in a response header.
 */
export function selectWebSocketProtocol(protocols: Set<string>): string | false {
  for (const protocol of protocols) if (!protocol.startsWith(WEBSOCKET_BEARER_PREFIX)) return protocol;
  return false;
}
