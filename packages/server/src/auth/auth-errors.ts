import type { AgentKitErrorOptions } from "@agentkit/core";
import { HttpRequestError } from "../errors/server-errors.js";

/**
 * Why a request was not authenticated, as the client may learn it: a short category, never the
 * verifier's reason (that goes to the server log at debug level).
 */
export type AuthFailure = "missing" | "malformed" | "invalid" | "expired";

const MESSAGES: Record<AuthFailure, string> = {
  missing: "Authentication required: send Authorization: Bearer <token>.",
  malformed: "Malformed Authorization header: expected Bearer <token>.",
  invalid: "Invalid credentials.",
  expired: "The token has expired.",
};

/**
 * 401 `UNAUTHENTICATED`. Authenticators throw it for credentials they refuse (returning
 * undefined means "no credentials"). `logDetail` says why for the server log; it must never
 * contain the credential itself and is never sent to the client.
 */
export class AuthenticationError extends HttpRequestError {
  readonly failure: AuthFailure;
  readonly logDetail: string | undefined;

  constructor(failure: AuthFailure, logDetail?: string, options: AgentKitErrorOptions = {}) {
    super(401, "UNAUTHENTICATED", MESSAGES[failure], options);
    this.failure = failure;
    this.logDetail = logDetail;
  }

  /** The `WWW-Authenticate` challenge of RFC 6750 for this failure. */
  challenge(realm: string): string {
    const base = `Bearer realm="${realm}"`;
    if (this.failure === "missing") return base;
    if (this.failure === "malformed") return `${base}, error="invalid_request"`;
    return `${base}, error="invalid_token"`;
  }
}

/** 403 `FORBIDDEN`: authenticated, but this principal may not do this. */
export class ForbiddenError extends HttpRequestError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super(403, "FORBIDDEN", message, options);
  }
}

/**
 * 503 `AUTHENTICATION_UNAVAILABLE`: the credentials could not be checked (the JWKS endpoint
 * is down or answered garbage). Not the client's fault, so not a 401.
 */
export class AuthenticationUnavailableError extends HttpRequestError {
  constructor(options: AgentKitErrorOptions = {}) {
    super(503, "AUTHENTICATION_UNAVAILABLE", "Credentials cannot be checked right now; try again later.", options);
  }
}
