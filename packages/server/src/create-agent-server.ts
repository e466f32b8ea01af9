import type { IncomingMessage, Server } from "node:http";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import type { AddressInfo } from "node:net";
import cors from "cors";
import express, { Router, type Express } from "express";
import {
  ConfigurationError,
  type BaseArtifactService,
  type BaseMemoryService,
  type BasePlugin,
  type BaseSessionService,
  type ModelRegistry,
} from "@agentkit/core";
import type { AgentLoader } from "./agent-loader.js";
import { createAgentTestsRouter } from "./dev/agent-tests-router.js";
import { createBuilderRouter } from "./dev/builder-router.js";
import { createTelemetryRouter, fileTelemetryConsent, memoryTelemetryConsent } from "./dev/telemetry-consent.js";
import { corsMiddlewareOptions, originMatcher, type ServerCorsOptions } from "./http/cors-options.js";
import { errorHandler, notFoundHandler } from "./http/error-handlers.js";
import { hostGuard, type HostGuardOptions } from "./http/host-guard.js";
import { LiveSocketServer } from "./live/live-socket-server.js";
import { appRoutes } from "./routes/app-routes.js";
import { artifactRoutes } from "./routes/artifact-routes.js";
import { devUiRoutes, type DevUiOptions } from "./routes/dev-ui-routes.js";
import { memoryRoutes } from "./routes/memory-routes.js";
import type { RouteDeps } from "./routes/route-deps.js";
import { runRoutes } from "./routes/run-routes.js";
import { sessionRoutes } from "./routes/session-routes.js";
import { usageRoutes } from "./routes/usage-routes.js";
import { RunnerCache } from "./runs/runner-cache.js";
import { RunTracker } from "./runs/run-tracker.js";
import { SessionRunQueue } from "./runs/session-run-queue.js";
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
   * Plugins added to every app's runner before the app's own (e.g. trace recording: first, so
   * no app plugin that short-circuits a hook hides a call from it). They are shared by all
   * runners and belong to the caller: runners never close them.
   */
  plugins?: readonly BasePlugin[];
  /** CORS (off when absent): allowed origins, methods, headers, credentials, max age. */
  cors?: ServerCorsOptions;
  /**
   * The address the server will be bound to, for the DNS-rebinding check (loopback binds only
   * accept loopback Host headers). `listen({ host })` sets it too. Default 127.0.0.1.
   */
  host?: string;
  /** Host names accepted besides loopback ones while bound to loopback. */
  allowedHosts?: readonly string[];
  /** Largest JSON body (bytes or a string like "50mb"); larger gets 413. Default "50mb" (as ADK JS). */
  bodyLimit?: number | string;
  /** Static dev UI (web mode). Without it `/dev-ui/` is a page saying the UI is not installed. */
  devUi?: DevUiOptions;
  /** "web" (default) serves the dev UI; "api" only the API (`/` answers "OK"). */
  mode?: "web" | "api";
  /** Where unexpected errors are reported (with their stacks; clients never see a stack). */
  logger?: ServerLogger;
  /**
   * Send the message of an unexpected error (a tool or callback that throws, a failing service)
   * to the client, as ADK's dev servers do, instead of "Internal server error". Off by default:
   * messages can carry internals (a connection string in a driver error). The `agentkit web`
   * dev server turns it on for its local developer. Stacks are never sent.
   */
  exposeErrorMessages?: boolean;
  /** Routers mounted after the built-in routes and before the JSON 404 (debug, graph, eval ...). */
  extraRouters?: readonly Router[];
  /**
   * The dev routes of http-api.md 4.11 (web mode only, default on there): `/config/telemetry`,
   * and, when the loader reads an agents directory, the agent builder
   * (`/dev/apps/{app}/builder…`) and agent tests (`/dev/apps/{app}/tests…`), which read and
   * write files in that directory.
   */
  devRoutes?: boolean;
  /** On close, how long running runs may finish before they are aborted. Default 5000 ms. */
  shutdownGraceMs?: number;
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
  /** The Express app (mount it in another server, or call `listen`). */
  readonly app: Express;
  /** What route modules share; pass it to `createDebugRouter` & co. */
  readonly context: ServerContext;
  /** Mounts a router before the JSON 404 (same slot as `extraRouters`). */
  mount(router: Router): void;
  /** For a server the caller owns: hand it HTTP upgrades so `/run_live` works there too. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Starts an HTTP server (with the `/run_live` WebSocket) on host and port. */
  listen(options?: ListenOptions): Promise<ListeningAddress>;
  /**
   * Graceful shutdown: stops accepting, refuses new runs (503), lets running runs finish for
   * `shutdownGraceMs` then aborts them, closes live sockets (1001) and the runners. The
   * caller's loader, services and plugins stay open. Idempotent.
   */
  close(): Promise<void>;
}

const DEFAULT_HOST = "127.0.0.1";

/** The agentkit web server of http-api.md: an Express app plus `ws` for `/run_live`. */
export function createAgentServer(options: AgentServerOptions): AgentServer {
  checkOptions(options);
  const logger = options.logger ?? consoleLogger;
  const runners = new RunnerCache({
    loader: options.loader,
    sessionService: options.sessionService,
    artifactService: options.artifactService,
    memoryService: options.memoryService,
    ...(options.modelRegistry ? { modelRegistry: options.modelRegistry } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
    onCloseError: (error, appName) => logger.warn(`Closing the previous runner of app "${appName}" failed`, error),
  });
  const context: ServerContext = {
    loader: options.loader,
    sessionService: options.sessionService,
    artifactService: options.artifactService,
    memoryService: options.memoryService,
    runnerFor: (appName) => runners.runnerFor(appName),
  };
  const exposeErrorMessages = options.exposeErrorMessages ?? false;
  const deps: RouteDeps = {
    context,
    runners,
    queue: new SessionRunQueue(),
    runs: new RunTracker(),
    logger,
    exposeErrorMessages,
  };

  let boundHost = options.host ?? DEFAULT_HOST;
  const guard: HostGuardOptions = {
    boundHost: () => boundHost,
    allowedHosts: options.allowedHosts ?? [],
    isAllowedOrigin: originMatcher(options.cors?.allowOrigins ?? []),
  };

  const app = express();
  app.disable("x-powered-by");
  app.use(hostGuard(guard));
  if (options.cors) app.use(cors(corsMiddlewareOptions(options.cors)));
  app.use(express.json({ limit: options.bodyLimit ?? "50mb", strict: true }));
  app.use(appRoutes(deps), sessionRoutes(deps), artifactRoutes(deps), memoryRoutes(deps), runRoutes(deps));
  app.use(usageRoutes(deps));
  const web = (options.mode ?? "web") === "web";
  const agentsDir = options.loader.agentsDir;
  const telemetry = agentsDir
    ? fileTelemetryConsent(join(agentsDir, ".agentkit", "telemetry.json"))
    : memoryTelemetryConsent();
  if (web) app.use(devUiRoutes(options.devUi, () => telemetry.read()));
  else app.get("/", (_req, res) => res.type("text").send("OK"));
  if (web && options.devRoutes !== false) {
    app.use(createTelemetryRouter(telemetry));
    if (agentsDir) {
      app.use(createBuilderRouter({ agentsDir }));
      app.use(
        createAgentTestsRouter({
          agentsDir,
          loader: options.loader,
          ...(options.modelRegistry ? { modelRegistry: options.modelRegistry } : {}),
        }),
      );
    }
  }
  const extra = Router();
  for (const router of options.extraRouters ?? []) extra.use(router);
  app.use(extra);
  app.use(notFoundHandler);
  app.use(errorHandler((error) => logger.error("Request failed", error), exposeErrorMessages));

  const live = new LiveSocketServer(deps, guard);
  let server: Server | undefined;
  let closing: Promise<void> | undefined;

  const closeNow = async (): Promise<void> => {
    const stopped = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
    await Promise.all([deps.runs.drain(options.shutdownGraceMs ?? 5000), live.close()]);
    server?.closeAllConnections();
    await stopped;
    await runners.close();
  };

  return {
    app,
    context,
    mount(router) {
      extra.use(router);
    },
    handleUpgrade(req, socket, head) {
      live.handleUpgrade(req, socket, head);
    },
    async listen(listenOptions = {}) {
      if (server) throw new ConfigurationError("This server is already listening; create another one to listen twice.");
      if (closing) throw new ConfigurationError("This server is closed.");
      const host = listenOptions.host ?? options.host ?? DEFAULT_HOST;
      boundHost = host;
      // Not a static `import … from "node:http"`: Node's ESM wrapper of a built-in reads every
      // export, and node:http's lazy ones load the whole fetch implementation (~50 ms of start-up).
      const http = process.getBuiltinModule("node:http").createServer(app);
      server = http;
      http.on("upgrade", (req, socket, head) => live.handleUpgrade(req, socket, head));
      http.on("clientError", (_error, socket) => {
        if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
        else socket.destroy();
      });
      await new Promise<void>((resolve, reject) => {
        http.once("error", reject);
        http.listen(listenOptions.port ?? 0, host, () => {
          http.off("error", reject);
          resolve();
        });
      });
      const { port } = http.address() as AddressInfo;
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
  if (options.cors && !Array.isArray(options.cors.allowOrigins)) {
    throw new ConfigurationError("createAgentServer: cors.allowOrigins must be an array of origins.");
  }
}
