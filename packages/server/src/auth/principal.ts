import type { Response } from "express";

/**
 * Who made a request, as the server's authenticator established it. Every route reads it
 * through `principalOf(res)`; routes never look at credentials themselves.
 */
export interface Principal {
  /** The user this principal acts as: it may touch only `{userId}` paths and runs of this user. */
  userId: string;
  /** Granted scopes; `ADMIN_SCOPE` lifts the own-user rule and opens the dev tooling routes. */
  scopes: readonly string[];
  /** Verified claims (JWT) or entry metadata (API keys), for custom authorization code. */
  claims?: Readonly<Record<string, unknown>>;
}

/** The scope that may act for every user and use the dev tooling routes. */
export const ADMIN_SCOPE = "admin";

/** Where the authentication middleware stores the principal (one key, one place). */
const PRINCIPAL_KEY = "agentkitPrincipal";

/** The request's principal, or undefined when the server runs without authentication. */
export function principalOf(res: Response): Principal | undefined {
  return res.locals[PRINCIPAL_KEY] as Principal | undefined;
}

/** Records the principal of this request (the authentication middleware's job). */
export function setPrincipal(res: Response, principal: Principal): void {
  res.locals[PRINCIPAL_KEY] = principal;
}

export function isAdmin(principal: Principal | undefined): boolean {
  return principal?.scopes.includes(ADMIN_SCOPE) ?? false;
}
