import type { IncomingMessage } from "node:http";
import { ConfigurationError } from "@agentkit/core";
import type { Principal } from "./principal.js";

/**
 * Establishes who sent a request: a principal, or undefined when the request carries no
 * credentials (the server answers 401). Refused credentials throw an `AuthenticationError`.
 * Called for HTTP requests and for the `/run_live` WebSocket upgrade alike, with the raw
 * request (its body is not read yet): read headers only. `bearerTokenOf(req)` gives the token
 * the built-in authenticators accept.
 */
export type Authenticator = (req: IncomingMessage) => Principal | undefined | Promise<Principal | undefined>;

/** Checks what an authenticator returned (a custom one may return anything) and freezes it. */
export function checkedPrincipal(value: unknown): Principal | undefined {
  if (value === undefined || value === null) return undefined;
  const p = value as Partial<Principal>;
  if (typeof p.userId !== "string" || p.userId === "")
    throw new ConfigurationError("The authenticator returned a principal without a non-empty string userId.");
  if (!Array.isArray(p.scopes) || p.scopes.some((s) => typeof s !== "string"))
    throw new ConfigurationError("The authenticator returned a principal whose scopes are not an array of strings.");
  return Object.freeze({
    userId: p.userId,
    scopes: Object.freeze([...p.scopes]),
    ...(p.claims ? { claims: Object.freeze({ ...p.claims }) } : {}),
  });
}
