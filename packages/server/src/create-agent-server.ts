import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { AddressInfo } from "node:net";
import cors from "cors";
import type { Express, RequestHandler, Router } from "express";
import {
  type BaseCredentialService,
  ConfigurationError,
  type BaseArtifactService,
  type BaseMemoryService,
  type BasePlugin,
  type BaseSessionService,
  type ModelRegistry,
  type SessionLock,
} from "@agentkit/core";
import type { AgentLoader } from "./agent-loader.js";
import { AccessControl, type ServerAuthOptions } from "./auth/access-control.js";
import type { Authenticator } from "./auth/authenticator.js";
import { BodyBudget, bodyGuard } from "./http/body-guard.js";
import { jsonBody } from "./http/json-body.js";
import { ConnectionLimiter } from "./http/connection-limiter.js";
import { corsMiddlewareOptions, originMatcher, type ServerCorsOptions } from "./http/cors-options.js";
import { errorHandler } from "./http/error-handlers.js";
import { devToolsGate } from "./http/dev-tools-gate.js";
import { hostGuard, isLoopbackHost, type HostGuardOptions } from "./http/host-guard.js";
import { DEFAULT_BODY_LIMIT, parseByteSize, resolveServerLimits, type ServerLimits } from "./http/server-limits.js";
import { RequestActivity } from "./http/request-activity.js";
import { describeReduction, IdleMemoryReducer, idleReductionDelay } from "./memory/idle-memory-reducer.js";
import { RunRateLimiter } from "./http/run-rate-limiter.js";
import type { ReadinessOptions } from "./health/readiness.js";
import { LiveSocketServer, type LiveStats } from "./live/live-socket-server.js";
import { hotRoutes } from "./routes/hot-routes.js";
import { hotRequestListener } from "./routes/hot-request-listener.js";
import type { DevUiOptions } from "./routes/dev-ui-routes.js";
import { LazyExpressApp, type RouterSource } from "./routes/express-app.js";
import type { RouteDeps } from "./routes/route-deps.js";
import { RunnerCache } from "./runs/runner-cache.js";
import { RunTracker, SETTLE_AFTER_ABORT_MS } from "./runs/run-tracker.js";
import { settlesWithin } from "@agentkit/core/internal";
import { endWaitingResponses } from "./http/end-at-turn-end.js";
import { createNodeHttpServer } from "./http/node-http-server.js";
import { admitRun } from "./runs/admit-run.js";
import { SessionRunQueue } from "./runs/session-run-queue.js";
import { type ServerWarmUp, warmUpApps } from "./runs/warm-up-apps.js";
import { warmUpHttp } from "./runs/warm-up-http.js";
import type { ServerContext } from "./server-context.js";
import { consoleLogger, type ServerLogger } from "./server-logger.js";

export interface AgentServerOptions {
  /** Where apps come from: `createStaticAgentLoader` or the directory loader. */
  loader: AgentLoader;
  /** The caller's services: the server uses them and never closes them. */
  sessionService: BaseSessionService;
  artifactService: BaseArtifactService;
  memoryService: BaseMemoryService;
  /** Resolves string model names of agents (an App's own registry wins). */
  modelRegistry?: ModelRegistry;
  /**
   * Where tools' credentials are kept, per app and user (docs/auth.md): the caller's, never closed
   * by the server. Default: each app's runner keeps its own in memory.
   */
  credentialService?: BaseCredentialService;
  /**
   * Plugins added to every app's runner before the app's own (e.g. trace recording: first, so
   * no app plugin that short-circuits a hook hides a call from it). They are shared by all
   * runners and belong to the caller: runners never close them.
   */
  plugins?: readonly BasePlugin[];
  /** CORS (off when absent): allowed origins, methods, headers, credentials, max age. */
  cors?: ServerCorsOptions;
  /**
   * The address the server will be bound to, for the DNS-rebinding check (loopback binds only
   * accept loopback Host headers, other binds the bound address and `allowedHosts`).
   * `listen({ host })` sets it too. Default 127.0.0.1.
   */
  host?: string;
  /**
   * Host names (the Host header's name) accepted besides the bound address and, when loopback
   * is reachable, loopback names: the server's DNS names, a tunnel's name.
   */
  allowedHosts?: readonly string[];
  /**
   * Authentication and authorization (off when absent: every request is served, as on a local
   * dev server). An `Authenticator` (`apiKeyAuthenticator`, `jwtAuthenticator`, or a function
   * `(req) => Principal | undefined`) or `{ authenticate, routes?, realm? }`. With it, every
   * route but the public ones (health, the dev UI's files) needs credentials (401), and a
   * principal may only touch its own user's sessions, artifacts, memory and runs unless it has
   * the admin scope (403). docs/server.md lists the rule of every route.
   */
  auth?: Authenticator | ServerAuthOptions;
  /**
   * Largest JSON body (bytes or a string like "20mb"); larger gets 413. Default "20mb": a 15 MB
   * file attached in the dev UI (sent as base64 inside the run request) still fits.
   */
  bodyLimit?: number | string;
  /**
   * Resource limits for a server that faces the public (bytes of large bodies in flight, JSON
   * depth, header/body/request/keep-alive timeouts, connections per client, `/run_live`
   * sockets and their queues). Defaults in `DEFAULT_SERVER_LIMITS`; docs/security.md#client-input-and-resource-limits.
   */
  limits?: ServerLimits;
  /**
   * The dev UI (web mode): its folder (without one `/dev-ui/` is a page saying the UI is not
   * installed), logo and stored telemetry consent answer.
   */
  devUi?: DevUiOptions;
  /**
   * "web" (default) serves the dev UI and mounts the dev tooling routers given to
   * `mountDevTools`; "api" only the API (`/` answers "OK", `mountDevTools` mounts nothing).
   */
  mode?: "web" | "api";
  /** Where unexpected errors are reported (with their stacks; clients never see a stack). */
  logger?: ServerLogger;
  /**
   * Told how long each run (and state edit) waited for its session's turn, in ms, once it has it
   * (the OpenTelemetry export's `agentkit.run_queue.wait`: `otel.recordRunQueueWait`).
   */
  onRunQueueWait?: (ms: number, appName: string) => void;
  /**
   * Send the message of an unexpected error (a tool or callback that throws, a failing service)
   * to the client, as ADK's dev servers do, instead of "Internal server error". Off by default:
   * messages can carry internals (a connection string in a driver error). The `agentkit web`
   * dev server turns it on for its local developer. Stacks are never sent.
   */
  exposeErrorMessages?: boolean;
  /**
   * Routers mounted after the built-in routes and before the JSON 404 (graph, A2A ...); a
   * function of no arguments is called for its router when the Express app is built.
   */
  extraRouters?: readonly RouterSource[];
  /**
   * On close, how long running runs may finish before they are cut (an SSE error frame or a 503
   * body with code `SHUTTING_DOWN`). Default 5000 ms.
   */
  shutdownGraceMs?: number;
  /**
   * Once the listening server has been quiet for `afterMs` (no request arriving, none in flight,
   * no run, no live socket), run one full collection that gives back the memory a busy period
   * grew V8's young generation to (about 100 MB after a burst of 10,000 sessions here); then
   * nothing more until traffic comes and goes again. It blocks the event loop while it collects
   * (168 ms for a heap of 113 MB here). Default `{ afterMs: 30000 }`;
   * `false` turns it off. docs/deployment.md, "Memory".
   */
  reduceMemoryWhenIdle?: boolean | { afterMs?: number };
  /**
   * `GET /readyz`: the timeout of each check (default 2000 ms) and checks of your own next to the
   * built-in ones (session and artifact stores answer, every app loads). docs/deployment.md.
   */
  readiness?: ReadinessOptions;
  /**
   * A lock on each session shared by every replica (`PostgresSessionLock`, `MongoSessionLock`
   * from `@agentkit/sessions`), taken around each run and state change after its turn in this
   * process, so runs on one session from several replicas are serialized instead of failing
   * with `STALE_SESSION`. Left open on close (the caller owns it). docs/deployment.md.
   */
  sessionLock?: SessionLock;
  /** How long a run waits for `sessionLock`; past it 409 `SESSION_BUSY` with nothing stored. Default 30000 ms. */
  sessionLockWaitMs?: number;
}

const DEFAULT_SESSION_LOCK_WAIT_MS = 30_000;

function checkWaitMs(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 1) {
    throw new ConfigurationError(`sessionLockWaitMs must be a positive integer of milliseconds, got ${ms}.`);
  }
  return ms;
}

export interface ListenOptions {
  /** Default: the `host` option, else 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
}

export interface ListeningAddress {
  url: string;
  port: number;
}

export interface AgentServer {
  /**
   * The Express app (mount it in another server, or call `listen`). It is built on first use:
   * reading this, or the first request the lean path for agent flows (`POST /run`, `/run_sse`,
   * session create) does not take; an API server serving only agent flows never loads Express.
   */
  readonly app: Express;
  /** What route modules share; pass it to `createDebugRouter` & co. */
  readonly context: ServerContext;
  /**
   * Mounts a router before the JSON 404 (same slot as `extraRouters`). Given a function of no
   * arguments instead, calls it for the router when the Express app is built, so making the
   * router (`Router()` loads Express) waits until a request needs it.
   */
  mount(router: RouterSource): void;
  /**
   * Mounts a dev tooling router (the builder, agent tests, telemetry consent, traces, evals of
   * `@agentkit/server/devtools`) behind the dev tooling gate (docs/security.md#dev-tooling), in
   * web mode only; ignored in api mode. Returns whether it was mounted.
   */
  mountDevTools(router: Router): boolean;
  /** For a server the caller owns: hand it HTTP upgrades so `/run_live` works there too. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Loads every app, its runner and the adapters of its models, runs the framework's code paths
   * once on a private agent, builds the agent-flow routes' request parsers and sends a few flows
   * over loopback HTTP to a private server of the same code (on 127.0.0.1, closed at once), so
   * no request loads or builds any of it and Node's HTTP code has run (docs/server.md, "Warm
   * start"). Apps that fail to load are logged and reported, never thrown. Call it before
   * `listen`, or after it with `yieldToRequests` (what the CLI does): the server answers at once
   * and each warm-up step waits until no request is in flight. `close` stops it before its next
   * step (a step under way, such as an app's module being imported, cannot be cancelled and ends
   * on its own; the report then says `completed: false`).
   */
  warmUp(options?: WarmUpOptions): Promise<ServerWarmUp>;
  /** Starts an HTTP server (with the `/run_live` WebSocket) on host and port. */
  listen(options?: ListenOptions): Promise<ListeningAddress>;
  /** What the limits currently hold: large-body bytes in flight and live sockets with their queues. */
  stats(): ServerStats;
  /**
   * Graceful shutdown: stops accepting, refuses new runs (503), lets running runs finish for
   * `shutdownGraceMs` then aborts them, closes live sockets (1001) and the runners. The
   * caller's loader, services and plugins stay open. Idempotent.
   */
  close(): Promise<void>;
}

/** How `AgentServer.warmUp` shares the process with requests. */
export interface WarmUpOptions {
  /** Run each step (an app, then the framework's code paths) only when no request is in flight. Default false. */
  yieldToRequests?: boolean;
}

/** A snapshot of what the resource limits bound (see `AgentServer.stats`). */
export interface ServerStats {
  /** Open connections counted by the per-client cap (0 when the cap is off, or before `listen`). */
  connectionsOpen: number;
  /** Bytes of large request bodies being read or handled. */
  bodyBytesInFlight: number;
  live: LiveStats;
  /** Idle memory reductions run so far (`reduceMemoryWhenIdle`). */
  idleMemoryReductions: number;
}

const DEFAULT_HOST = "127.0.0.1";

/** The agentkit web server of http-api.md: an Express app plus `ws` for `/run_live`. */
export function createAgentServer(options: AgentServerOptions): AgentServer {
  checkOptions(options);
  const bodyLimitBytes = parseByteSize(options.bodyLimit ?? DEFAULT_BODY_LIMIT, "bodyLimit");
  const limits = resolveServerLimits(options.limits, bodyLimitBytes);
  const logger = options.logger ?? consoleLogger;
  const runners = new RunnerCache({
    loader: options.loader,
    sessionService: options.sessionService,
    artifactService: options.artifactService,
    memoryService: options.memoryService,
    ...(options.modelRegistry ? { modelRegistry: options.modelRegistry } : {}),
    ...(options.credentialService ? { credentialService: options.credentialService } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
    onCloseError: (error, appName) => logger.warn(`Closing the previous runner of app "${appName}" failed`, error),
  });
  const context: ServerContext = {
    loader: options.loader,
    sessionService: options.sessionService,
    artifactService: options.artifactService,
    memoryService: options.memoryService,
    runnerFor: (appName) => runners.runnerFor(appName),
    // `deps` is made below; runs are admitted only once the server serves.
    admitRun: (key, run) => admitRun(deps, key, run),
  };
  const exposeErrorMessages = options.exposeErrorMessages ?? false;
  const deps: RouteDeps = {
    context,
    runners,
    queue: new SessionRunQueue(
      options.sessionLock
        ? { lock: options.sessionLock, waitMs: checkWaitMs(options.sessionLockWaitMs ?? DEFAULT_SESSION_LOCK_WAIT_MS) }
        : undefined,
      options.onRunQueueWait,
    ),
    runs: new RunTracker(logger),
    rateLimiter: new RunRateLimiter(limits),
    logger,
    exposeErrorMessages,
    sseWriteTimeoutMs: limits.sseWriteTimeoutMs,
  };

  let boundHost = options.host ?? DEFAULT_HOST;
  const guard: HostGuardOptions = {
    boundHost: () => boundHost,
    allowedHosts: options.allowedHosts ?? [],
    isAllowedOrigin: originMatcher(options.cors?.allowOrigins ?? []),
  };

  const access = options.auth
    ? new AccessControl(typeof options.auth === "function" ? { authenticate: options.auth } : options.auth, logger)
    : undefined;

  const connections = new ConnectionLimiter(limits.maxConnectionsPerClient);
  const bodyBudget = new BodyBudget(limits.maxBodyBytesInFlight);
  // The guards and body reading of every request, in order; the hot requests of an agent flow
  // run this same chain without Express when the server listens (`hotRequestListener`).
  const chain: RequestHandler[] = [connections.guard, hostGuard(guard)];
  if (options.cors) chain.push(cors(corsMiddlewareOptions(options.cors)));
  // Credentials are checked before a body is read; the rule needs the body (`/run` names its user there).
  if (access) chain.push(access.identify);
  chain.push(
    bodyGuard(
      {
        bodyLimitBytes,
        maxBytesInFlight: limits.maxBodyBytesInFlight,
        bodyTimeoutMs: limits.bodyTimeoutMs,
      },
      bodyBudget,
    ),
    jsonBody({ limitBytes: bodyLimitBytes, maxDepth: limits.maxJsonDepth }),
  );
  if (access) chain.push(access.authorize);
  // The requests of every agent flow skip the routers (exact paths only; the same handlers).
  chain.push(hotRoutes(deps));
  const onError = errorHandler((error) => logger.error("Request failed", error), exposeErrorMessages);
  const web = (options.mode ?? "web") === "web";
  // Everything else is the Express app, built on first use (routes/express-app.ts). The dev
  // tooling routers come from `@agentkit/server/devtools`, so an API server never loads them.
  const expressApp = new LazyExpressApp(
    {
      chain,
      deps,
      ...(options.readiness ? { readiness: options.readiness } : {}),
      web,
      ...(options.devUi ? { devUi: options.devUi } : {}),
      ...(web
        ? { devToolsGate: devToolsGate({ boundHost: () => boundHost, authConfigured: () => access !== undefined }) }
        : {}),
      onError,
    },
    options.extraRouters,
  );
  // Custom auth rules see requests as Express's: the hot path then needs the app's prototypes.
  const expressPrototypes = access?.hasCustomRules ?? false;
  if (expressPrototypes) expressApp.app();
  const listener = hotRequestListener({
    app: () => expressApp.app(),
    chain,
    onError,
    bodyLimitBytes,
    expressPrototypes,
  });

  const live = new LiveSocketServer(deps, guard, limits.live, access);
  let server: Server | undefined;
  let closing: Promise<void> | undefined;
  const activity = new RequestActivity();
  const reduceAfterMs = idleReductionDelay(options.reduceMemoryWhenIdle);
  let reducer: IdleMemoryReducer | undefined;

  const closeNow = async (): Promise<void> => {
    const stopped = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
    activity.close();
    reducer?.close();
    await Promise.all([deps.runs.drain(options.shutdownGraceMs ?? 5000), live.close()]);
    // Cluster locks go back to the store before the caller closes it (bounded: a turn held by a
    // run that ignored its abort, or by a store that does not answer, must not stop the close).
    if (options.sessionLock && !(await settlesWithin(deps.queue.idle(), SETTLE_AFTER_ABORT_MS))) {
      logger.warn(`Session turns still held ${SETTLE_AFTER_ABORT_MS} ms after shutdown; closing without them`);
    }
    // Answers of the turn that ended the runs (503s included) leave before the sockets close.
    endWaitingResponses();
    server?.closeAllConnections();
    await stopped;
    await runners.close();
  };

  return {
    get app() {
      return expressApp.app();
    },
    context,
    mount(router) {
      expressApp.mount(router);
    },
    mountDevTools(router) {
      return expressApp.mountDevTools(router);
    },
    handleUpgrade(req, socket, head) {
      live.handleUpgrade(req, socket, head);
    },
    stats() {
      return {
        connectionsOpen: connections.total,
        bodyBytesInFlight: bodyBudget.inFlight,
        live: live.stats(),
        idleMemoryReductions: reducer?.reductions ?? 0,
      };
    },
    warmUp(warmUpOptions = {}) {
      return warmUpApps(options.loader, runners, logger, {
        pacing: {
          turn: warmUpOptions.yieldToRequests === true ? () => activity.whenIdle() : async () => {},
          stopped: () => closing !== undefined,
        },
        routes: () => warmUpHttp(createAgentServer),
      });
    },
    async listen(listenOptions = {}) {
      if (server) throw new ConfigurationError("This server is already listening; create another one to listen twice.");
      if (closing) throw new ConfigurationError("This server is closed.");
      const host = listenOptions.host ?? options.host ?? DEFAULT_HOST;
      boundHost = host;
      const http = createNodeHttpServer(limits, activity.wrap(listener));
      server = http;
      connections.attach(http);
      http.on("upgrade", (req, socket, head) => {
        if (connections.isRefused(req.socket)) return void socket.destroy();
        live.handleUpgrade(req, socket, head);
      });
      await new Promise<void>((resolve, reject) => {
        http.once("error", reject);
        http.listen(listenOptions.port ?? 0, host, () => {
          http.off("error", reject);
          resolve();
        });
      });
      const { port } = http.address() as AddressInfo;
      if (reduceAfterMs !== undefined) {
        reducer = new IdleMemoryReducer({
          afterMs: reduceAfterMs,
          arrivals: () => activity.requestsArrived,
          isIdle: () => activity.requestsInFlight === 0 && deps.runs.size === 0 && live.stats().sockets === 0,
          onReduced: (report) => logger.info(describeReduction(reduceAfterMs, report)),
        });
      }
      if (!access && !isLoopbackHost(host))
        logger.warn(
          `Listening on ${host} without authentication: anyone who can reach it can read and change every user's ` +
            `sessions (pass the auth option).`,
        );
      const urlHost = host.includes(":") ? `[${host}]` : host === "0.0.0.0" ? DEFAULT_HOST : host;
      return { url: `http://${urlHost}:${port}`, port };
    },
    close() {
      closing ??= closeNow();
      return closing;
    },
  };
}

function checkOptions(options: AgentServerOptions): void {
  if (!options || typeof options !== "object")
    throw new ConfigurationError("createAgentServer needs an options object.");
  for (const key of ["loader", "sessionService", "artifactService", "memoryService"] as const) {
    if (!options[key]) throw new ConfigurationError(`createAgentServer needs options.${key}.`);
  }
  if (options.mode !== undefined && options.mode !== "web" && options.mode !== "api") {
    throw new ConfigurationError(
      `createAgentServer: mode must be "web" or "api", got ${JSON.stringify(options.mode)}.`,
    );
  }
  if (options.auth !== undefined && typeof options.auth !== "function" && typeof options.auth !== "object") {
    throw new ConfigurationError(
      "createAgentServer: auth must be an authenticator function or { authenticate, routes? }.",
    );
  }
  if (options.allowedHosts !== undefined && !Array.isArray(options.allowedHosts)) {
    throw new ConfigurationError("createAgentServer: allowedHosts must be an array of host names.");
  }
  if (options.cors && !Array.isArray(options.cors.allowOrigins)) {
    throw new ConfigurationError("createAgentServer: cors.allowOrigins must be an array of origins.");
  }
}
