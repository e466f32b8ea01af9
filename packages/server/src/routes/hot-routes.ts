import type { NextFunction, Request, RequestHandler, Response } from "express";
import { validateSessionKeyPart } from "@agentkit/core/internal";
import { runHandler, runSseHandler } from "./run-routes.js";
import type { RouteDeps } from "./route-deps.js";
import { createSessionHandler } from "./session-routes.js";

/** The create-session path exactly as clients send it (no query, no trailing slash, lower case). */
const CREATE_SESSION_PATH = /^\/apps\/([^/]+)\/users\/([^/]+)\/sessions$/;

/** Whether `hotRoutes` takes a request (method and exact path); it still checks the parameters. */
export function isHotRoute(method: string | undefined, url: string | undefined): boolean {
  if (method !== "POST" || url === undefined) return false;
  return url === "/run" || url === "/run_sse" || CREATE_SESSION_PATH.test(url);
}

/**
 * The requests of every agent flow, `POST /run` (and `/run_sse`) and
 * `POST /apps/{app}/users/{user}/sessions`, handed straight to their handlers: through the
 * routers they are matched against every route registered before them (health, apps, sessions:
 * dozens of path patterns, with router bookkeeping and `debug` calls at each). Mounted after the
 * guards, body parsing and auth, so those apply unchanged (`hotRequestListener` runs the same
 * chain without Express); only exact paths are taken here (the routers still serve `/run/`,
 * `/RUN`, a query string ...), and parameters are decoded and checked as the session router
 * does (a malformed escape is 400 `INVALID_URL`, a bad key 400 `INVALID_SESSION_KEY`).
 */
export function hotRoutes(deps: RouteDeps): RequestHandler {
  const run = runHandler(deps);
  const runSse = runSseHandler(deps);
  const createSession = createSessionHandler(deps);
  return (req, res, next) => {
    if (req.method !== "POST") return next();
    if (req.url === "/run") return dispatch(run, req, res, next);
    if (req.url === "/run_sse") return dispatch(runSse, req, res, next);
    const match = CREATE_SESSION_PATH.exec(req.url);
    if (!match) return next();
    let params: { app: string; user: string };
    try {
      params = { app: decodeParam(match[1]!), user: decodeParam(match[2]!) };
      validateSessionKeyPart(params.app, "appName");
      validateSessionKeyPart(params.user, "userId");
    } catch (error) {
      return next(error);
    }
    req.params = params;
    dispatch(createSession as RequestHandler, req, res, next);
  };
}

/** Runs a route handler as the router does: a rejected promise or a throw goes to `next`. */
function dispatch(handler: RequestHandler, req: Request, res: Response, next: NextFunction): void {
  try {
    const result: unknown = handler(req, res, next);
    if (result instanceof Promise) result.catch(next);
  } catch (error) {
    next(error);
  }
}

/** The router's parameter decoding: a malformed escape is a URIError (the error handler's 400). */
function decodeParam(value: string): string {
  return decodeURIComponent(value);
}
