import type { IncomingMessage } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import { ConfigurationError } from "@agentkit/core";
import { errorBody } from "../errors/status-for-error.js";
import { standaloneRouter, type Router } from "../http/express-module.js";
import { sendJson } from "../http/send-json.js";
import type { ServerLogger } from "../server-logger.js";
import { AuthenticationError, AuthenticationUnavailableError, ForbiddenError } from "./auth-errors.js";
import { checkedPrincipal, type Authenticator } from "./authenticator.js";
import { isAdmin, principalOf, setPrincipal, type Principal } from "./principal.js";
import { BUILT_IN_ROUTE_RULES, type RouteRule } from "./route-access.js";

/** `createAgentServer({ auth })` in full; a bare `Authenticator` function is the short form. */
export interface ServerAuthOptions {
  /** Who sent a request: `apiKeyAuthenticator(…)`, `jwtAuthenticator(…)` or your own function. */
  authenticate: Authenticator;
  /**
   * Rules for the routes of your own routers (`mount`, `extraRouters`), checked before the
   * built-in ones. A route no rule matches is admin-only.
   */
  routes?: readonly RouteRule[];
  /** The `realm` of `WWW-Authenticate` challenges. Default "agentkit". */
  realm?: string;
}

interface RuleMatch {
  rule: RouteRule;
  params: Readonly<Record<string, string>>;
}

/** Where the matched rule waits between authentication (before the body) and authorization (after). */
const MATCH_KEY = "agentkitRouteRule";

/** Routes no rule names: admin only. */
const FALLBACK: RuleMatch = { rule: { methods: "*", paths: [], access: "admin" }, params: {} };

/**
 * Authentication and authorization in two middlewares around the JSON body parser, so that
 * no route checks credentials itself:
 * - `identify` (before the body is read) finds the request's rule with an Express router over
 *   the rules' path patterns, and unless the route is public, runs the authenticator: no
 *   principal is a 401 with a `WWW-Authenticate: Bearer` challenge;
 * - `authorize` (after, since `/run` names its user in the body) applies the rule: 403 when
 *   the principal may not act for that user or lacks the admin scope.
 * The `/run_live` upgrade goes through `checkLiveUpgrade`, with the same authenticator.
 */
export class AccessControl {
  private readonly authenticator: Authenticator;
  private readonly realm: string;
  private readonly rules: Router;
  /** Whether the caller added route rules (their `userOf` is written against Express's request). */
  readonly hasCustomRules: boolean;

  constructor(
    options: ServerAuthOptions,
    private readonly logger: ServerLogger,
  ) {
    if (typeof options.authenticate !== "function")
      throw new ConfigurationError(
        "createAgentServer: auth.authenticate must be a function (req) => Principal | undefined.",
      );
    this.authenticator = options.authenticate;
    this.realm = options.realm ?? "agentkit";
    if (!/^[\x20-\x7e]*$/.test(this.realm) || this.realm.includes('"'))
      throw new ConfigurationError("createAgentServer: auth.realm must be printable ASCII without quotes.");
    this.rules = ruleRouter([...(options.routes ?? []), ...BUILT_IN_ROUTE_RULES]);
    this.hasCustomRules = (options.routes ?? []).length > 0;
  }

  readonly identify: RequestHandler = (req, res, next) => {
    const matched = (error?: unknown) => {
      if (error) return next(error);
      const match = (res.locals[MATCH_KEY] as RuleMatch | undefined) ?? FALLBACK;
      res.locals[MATCH_KEY] = match;
      if (match.rule.access === "public") return next();
      this.authenticate(req).then(
        (principal) => {
          setPrincipal(res, principal);
          next();
        },
        (failure: unknown) => this.refuse(req, res, failure, next),
      );
    };
    // The rule router would answer OPTIONS itself (Express lists a path's methods); OPTIONS
    // requests the CORS middleware did not answer take the fallback rule instead.
    if (req.method === "OPTIONS") return matched();
    this.rules(req, res, matched);
  };

  readonly authorize: RequestHandler = (req, res, next) => {
    const match = res.locals[MATCH_KEY] as RuleMatch | undefined;
    const principal = principalOf(res);
    if (match?.rule.access === "public") return next();
    if (!match || !principal) return next(new ConfigurationError("AccessControl.authorize ran without identify."));
    const denial = this.denial(match, principal, req);
    if (denial === undefined) return next();
    this.logger.debug?.(`Forbidden: ${req.method} ${pathOf(req)} for user "${principal.userId}": ${denial}`);
    sendJson(res, 403, errorBody(new ForbiddenError(denial)));
  };

  /**
   * For the `/run_live` upgrade: the principal, when it may act for `user`. Throws
   * `AuthenticationError` (401), `ForbiddenError` (403) or `AuthenticationUnavailableError` (503).
   */
  async checkLiveUpgrade(req: IncomingMessage, user: string | undefined): Promise<Principal> {
    const principal = await this.authenticate(req).catch((error: unknown) => {
      this.logFailure(req, error);
      throw error;
    });
    if (user !== undefined && user !== principal.userId && !isAdmin(principal)) {
      this.logger.debug?.(`Forbidden: live run as another user for user "${principal.userId}"`);
      throw new ForbiddenError(OWN_USER_ONLY);
    }
    return principal;
  }

  /** The `WWW-Authenticate` value for a refused request. */
  challenge(error: AuthenticationError): string {
    return error.challenge(this.realm);
  }

  private async authenticate(req: IncomingMessage): Promise<Principal> {
    const principal = checkedPrincipal(await this.authenticator(req));
    if (!principal) throw new AuthenticationError("missing");
    return principal;
  }

  private denial(match: RuleMatch, principal: Principal, req: Request): string | undefined {
    switch (match.rule.access) {
      case "public":
      case "authenticated":
      case "owner-scoped":
        return undefined;
      case "admin":
        return isAdmin(principal) ? undefined : `This route needs the "admin" scope.`;
      case "own-user": {
        if (isAdmin(principal)) return undefined;
        const user = match.rule.userOf ? match.rule.userOf(req, match.params) : match.params.user;
        // No user named: the route refuses the request itself (400) or uses the principal's user.
        return user === undefined || user === principal.userId ? undefined : OWN_USER_ONLY;
      }
    }
  }

  private refuse(req: Request, res: Response, error: unknown, next: (error?: unknown) => void): void {
    this.logFailure(req, error);
    if (!(error instanceof AuthenticationError)) return void next(error);
    res.setHeader("WWW-Authenticate", this.challenge(error));
    sendJson(res, 401, errorBody(error));
  }

  private logFailure(req: IncomingMessage, error: unknown): void {
    const where = `${req.method ?? "GET"} ${pathOf(req)}`;
    if (error instanceof AuthenticationError)
      this.logger.debug?.(
        `Unauthenticated: ${where}: ${error.failure}${error.logDetail ? ` (${error.logDetail})` : ""}`,
      );
    else if (error instanceof AuthenticationUnavailableError)
      this.logger.warn(`Cannot check credentials for ${where}`, error.cause);
  }
}

/** A request's path for log lines (the URL without its query). */
function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? "/", "http://localhost").pathname;
}

const OWN_USER_ONLY = "This principal may only act for its own user.";

/**
 * A router whose routes are the rules: each records its rule and parameters and leaves the
 * router, so a request gets the first rule whose method and path match, decoded exactly as the
 * real routes decode them (the same router implementation as Express's, without loading Express).
 */
function ruleRouter(rules: readonly RouteRule[]): Router {
  const router = standaloneRouter();
  for (const rule of rules) {
    checkRule(rule);
    const record: RequestHandler = (req, res, next) => {
      res.locals[MATCH_KEY] = { rule, params: { ...(req.params as Record<string, string>) } } satisfies RuleMatch;
      next("router");
    };
    for (const path of rule.paths) {
      const route = router.route(path);
      if (rule.methods === "*") route.all(record);
      else for (const method of rule.methods) route[method.toLowerCase() as "get"](record);
    }
  }
  return router;
}

const ACCESS = new Set(["public", "authenticated", "own-user", "owner-scoped", "admin"]);
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

function checkRule(rule: RouteRule): void {
  const name = JSON.stringify(rule.paths);
  if (!ACCESS.has(rule.access))
    throw new ConfigurationError(`auth.routes ${name}: unknown access ${JSON.stringify(rule.access)}.`);
  if (!Array.isArray(rule.paths) || rule.paths.length === 0 || rule.paths.some((p) => typeof p !== "string"))
    throw new ConfigurationError(`auth.routes ${name}: paths must be a non-empty array of path patterns.`);
  if (rule.methods !== "*" && (!Array.isArray(rule.methods) || rule.methods.some((m) => !METHODS.has(m))))
    throw new ConfigurationError(`auth.routes ${name}: methods must be "*" or upper-case HTTP methods.`);
  // Without a `:user` parameter or a userOf, an own-user rule would name no user and let everyone through.
  if (rule.access === "own-user" && !rule.userOf && rule.paths.some((p) => !/:user\b/.test(p)))
    throw new ConfigurationError(`auth.routes ${name}: an own-user rule needs a :user path parameter or userOf.`);
}
