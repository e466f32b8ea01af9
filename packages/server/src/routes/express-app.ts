import type { ErrorRequestHandler, Express, RequestHandler } from "express";
import { loadExpress, Router } from "../http/express-module.js";
import { DevToolsMount } from "../http/dev-tools-gate.js";
import { notFoundHandler } from "../http/error-handlers.js";
import { healthRoutes } from "../health/health-routes.js";
import type { ReadinessOptions } from "../health/readiness.js";
import { appRoutes } from "./app-routes.js";
import { artifactRoutes } from "./artifact-routes.js";
import { devUiRoutes, type DevUiOptions } from "./dev-ui-routes.js";
import { memoryRoutes } from "./memory-routes.js";
import type { RouteDeps } from "./route-deps.js";
import { runRoutes } from "./run-routes.js";
import { sessionRoutes } from "./session-routes.js";
import { usageRoutes } from "./usage-routes.js";

/** A router, or a function that makes it when the Express app is built (so Express loads no sooner). */
export type RouterSource = Router | (() => Router);

/** What `createAgentServer` builds its Express app from. */
export interface ExpressAppParts {
  /** The guards, body reading and authorization of every request, then `hotRoutes`, in order. */
  chain: readonly RequestHandler[];
  deps: RouteDeps;
  readiness?: ReadinessOptions;
  /** Web mode: the dev UI's routes and the dev tooling behind `devToolsGate`; else `GET /` answers "OK". */
  web: boolean;
  devUi?: DevUiOptions;
  devToolsGate?: RequestHandler;
  onError: ErrorRequestHandler;
}

/**
 * The server's Express app, built on first use: the first request the lean hot path does not
 * take (`hotRequestListener`), or `AgentServer.app`. An API server whose requests are all agent
 * flows therefore never loads Express, the largest part of a start (`express-module.ts`).
 * Routers mounted before the build are applied by it, in order, before the JSON 404; after it,
 * in the same slot.
 */
export class LazyExpressApp {
  private built: { app: Express; extra: Router; devTools: DevToolsMount | undefined } | undefined;
  private readonly mounted: RouterSource[];
  private readonly devRouters: Router[] = [];

  constructor(
    private readonly parts: ExpressAppParts,
    extraRouters: readonly RouterSource[] = [],
  ) {
    this.mounted = [...extraRouters];
  }

  /** Whether the app exists yet. */
  get isBuilt(): boolean {
    return this.built !== undefined;
  }

  /** The app, built now if it was not. */
  app(): Express {
    this.built ??= this.build();
    return this.built.app;
  }

  mount(router: RouterSource): void {
    if (this.built) this.built.extra.use(routerOf(router));
    else this.mounted.push(router);
  }

  /** Adds a dev tooling router behind the gate; false (nothing mounted) outside web mode. */
  mountDevTools(router: Router): boolean {
    if (!this.parts.web || !this.parts.devToolsGate) return false;
    if (this.built) this.built.devTools!.add(router);
    else this.devRouters.push(router);
    return true;
  }

  private build(): { app: Express; extra: Router; devTools: DevToolsMount | undefined } {
    const { chain, deps, web } = this.parts;
    const app = loadExpress()();
    app.disable("x-powered-by");
    // No ETag on API answers: hashing every body costs CPU and nobody revalidates a run (the dev
    // UI's static files keep theirs: serve-static sets its own).
    app.set("etag", false);
    for (const middleware of chain) app.use(middleware);
    app.use(healthRoutes(deps.context, deps.runs, this.parts.readiness));
    app.use(appRoutes(deps), sessionRoutes(deps), artifactRoutes(deps), memoryRoutes(deps), runRoutes(deps));
    app.use(usageRoutes(deps));
    if (web) app.use(devUiRoutes(this.parts.devUi));
    else app.get("/", (_req, res) => res.type("text").send("OK"));
    const extra = Router();
    for (const router of this.mounted.splice(0)) extra.use(routerOf(router));
    app.use(extra);
    // Every dev tooling router goes through this one mount, behind the gate (never in api mode).
    const devTools = web && this.parts.devToolsGate ? new DevToolsMount(this.parts.devToolsGate) : undefined;
    if (devTools) {
      for (const router of this.devRouters.splice(0)) devTools.add(router);
      app.use(devTools.router);
    }
    app.use(notFoundHandler);
    app.use(this.parts.onError);
    return { app, extra, devTools };
  }
}

function routerOf(source: RouterSource): Router {
  // A router is itself a function (of the request, response and next): a factory takes nothing.
  return "stack" in source || source.length > 0 ? (source as Router) : (source as () => Router)();
}
