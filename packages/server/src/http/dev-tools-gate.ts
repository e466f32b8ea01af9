import type { RequestHandler } from "express";
import { Router } from "./express-module.js";
import { isAdmin, principalOf } from "../auth/principal.js";
import { isLoopbackHost } from "./host-guard.js";

export interface DevToolsGateOptions {
  /** The address the server is bound to (read per request: known only after listen). */
  boundHost: () => string | undefined;
  /** Whether the server authenticates requests (then only an admin principal passes). */
  authConfigured: () => boolean;
}

const REASON =
  "Forbidden: the dev tooling routes need an admin principal, or a server without authentication bound to loopback";

/**
 * The gate of the dev tooling routes (agent builder, agent tests, telemetry consent, traces,
 * evals): they write files the loader turns into code, run agents on request and show every
 * user's sessions, so they answer only an admin principal, or anyone when the server has no
 * authentication and listens on loopback only (the developer's own machine). 403 JSON otherwise.
 */
export function devToolsGate(options: DevToolsGateOptions): RequestHandler {
  return (_req, res, next) => {
    if (isAdmin(principalOf(res))) return next();
    if (!options.authConfigured() && isLoopbackHost(options.boundHost())) return next();
    res.status(403).json({ error: REASON, detail: REASON, code: "FORBIDDEN" });
  };
}

/**
 * Where the dev routers are mounted: each behind `gate`. The gate runs on the paths of the
 * router's own routes, so other requests (a 404 included) never meet it; a router with
 * middleware of its own (paths unknown) gets the gate in front of all of it.
 */
export class DevToolsMount {
  readonly router: Router = Router();
  private readonly gate: RequestHandler;

  constructor(gate: RequestHandler) {
    this.gate = gate;
  }

  add(router: Router): void {
    const paths = routePathsOf(router, "");
    if (paths === undefined) this.router.use(this.gate, router);
    else {
      if (paths.length > 0) this.router.all(paths, this.gate);
      this.router.use(router);
    }
  }
}

/** Express 5 router internals: the layers of `router.stack` this reads. */
interface Layer {
  route?: { path?: unknown };
  handle?: { stack?: unknown };
  rawPath?: unknown;
}

/** The string paths of a router's routes (nested routers included), or undefined when it has anything else. */
function routePathsOf(router: { stack?: unknown }, prefix: string): string[] | undefined {
  if (!Array.isArray(router.stack)) return undefined;
  const paths: string[] = [];
  for (const layer of router.stack as Layer[]) {
    if (layer.route) {
      const own = [layer.route.path].flat();
      if (!own.every((p): p is string => typeof p === "string")) return undefined;
      paths.push(...own.map((p) => prefix + p));
    } else if (layer.handle && Array.isArray(layer.handle.stack) && typeof layer.rawPath === "string") {
      const mount = layer.rawPath === "/" ? "" : layer.rawPath;
      const nested = routePathsOf(layer.handle, prefix + mount);
      if (nested === undefined) return undefined;
      paths.push(...nested);
    } else return undefined;
  }
  return paths;
}
