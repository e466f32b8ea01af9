import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { settleInOrder } from "@agentkit/core/internal";
import { devUiDir } from "@agentkit/dev-ui";
import { createModelRegistry } from "@agentkit/models";
import {
  createAgentServer,
  createDirectoryAgentLoader,
  createGraphRouter,
  isLoopbackHost,
  type AgentServer,
  type ServerLogger,
  type ServerWarmUp,
} from "@agentkit/server";
import type { OtelConfig, OtelExport } from "@agentkit/server/otel";
import { CliUsageError } from "./cli-usage-error.js";
import { createServices } from "./create-services.js";
import { devServerBuiltInCodeExecutors } from "./dev-server-code-executors.js";
import { devServerBuilderPolicy, devServerBuiltInTools } from "./dev-server-tools.js";
import { createLogger } from "./create-logger.js";
import type { ServeOptions } from "./parse-cli-args.js";
import { createSecretScrubber } from "./secret-scrubber.js";
import { secretValues } from "./secret-values.js";
import { devServerAuth } from "./server-auth.js";
import { createUserSimulatorResolver } from "./user-simulator-resolver.js";

export interface StartDevServerOptions extends ServeOptions {
  mode: "web" | "api";
  /** Where the startup banner goes (default stdout). */
  log?: NodeJS.WritableStream;
  /** The environment (OTEL_* for `--otel`, secrets to keep out of logs); default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface RunningDevServer {
  /** The server's Express app (its router stack is what the route-table tests enumerate). */
  readonly app: AgentServer["app"];
  url: string;
  port: number;
  apps: string[];
  /**
   * Settles when the warm-up that runs after listening ends: its report, or undefined with
   * `warmUp: false` (or when listing the apps failed, which is logged). Never rejects.
   */
  warmedUp: Promise<ServerWarmUp | undefined>;
  close(): Promise<void>;
}

/**
 * The composition root: the only place that knows concrete backends. Loads the agents
 * directory, opens the services named by URIs, builds the server with graphs (and, for
 * `agentkit web`, the dev tooling of `@agentkit/server/devtools`: telemetry consent, agent
 * builder, agent tests, traces and evals, behind the server's dev tooling gate),
 * listens, and prints the URL and the apps.
 */
export async function startDevServer(options: StartDevServerOptions): Promise<RunningDevServer> {
  const started = performance.now();
  // First: a server that would be open to the network, or bad keys, fail before anything starts.
  const auth = devServerAuth(options, options.mode === "web" ? "web" : "api-server");
  const agentsDir = resolve(options.agentsDir);
  const uiDir = options.mode === "web" ? devUiDirOption(options.devUiDir) : undefined;
  const env = options.env ?? process.env;
  const secrets = secretValues(options, env);
  const baseLogger = createLogger(options.logLevel, undefined, dirname(agentsDir), {
    ...(options.logFormat ? { format: options.logFormat } : {}),
    secrets,
  });
  // Loaded only with --otel: a server without it never loads the OpenTelemetry SDK or exporters.
  // Before the loader and services: a bad OTEL_* variable fails with nothing else started.
  const otel = options.otel ? await startOtel(options, env, baseLogger, createSecretScrubber(secrets)) : undefined;
  const logger = otel ? otel.export.logger(baseLogger, options.logLevel) : baseLogger;
  const modelRegistry = createModelRegistry();
  let loader: ReturnType<typeof createDirectoryAgentLoader>;
  let services: Awaited<ReturnType<typeof createServices>>;
  try {
    loader = createDirectoryAgentLoader({
      agentsDir,
      reload: options.reload,
      modelRegistry,
      builtInTools: devServerBuiltInTools(),
      builtInCodeExecutors: devServerBuiltInCodeExecutors(),
      builderPolicy: devServerBuilderPolicy(),
    });
    services = await createServices(options, { agentsDir, clusterLock: options.sessionLock !== "process" });
  } catch (error) {
    await otel?.export.shutdown();
    throw error;
  }
  // Traces and evals are dev tooling: `agentkit api-server` neither records nor serves them.
  const web = options.mode === "web";
  // Loaded only for web: `api-server` never loads the dev tooling modules (nor OpenTelemetry without --otel).
  const devtools = web ? await import("@agentkit/server/devtools") : undefined;
  // With --otel the export gets the very spans the dev UI shows (one tracer provider, two processors).
  const traces = devtools?.createTraceRecorder(
    otel ? { spanProcessors: (plugin) => [otel.export.spanProcessorFor(plugin)].filter((p) => p !== undefined) } : {},
  );
  const otelPlugins = otel?.export.plugins({ tracing: !traces }) ?? [];
  // Eval cases that simulate tools are served by this plugin in every app runner (inert for other runs).
  const toolSimulator = devtools ? new devtools.ToolSimulationPlugin() : undefined;
  // The dev UI asks once: its answer is kept next to the apps and shown in the UI's runtime config.
  const telemetry = devtools?.fileTelemetryConsent(join(agentsDir, ".agentkit", "telemetry.json"));
  const devUi = telemetry ? { ...uiDir, telemetryConsent: () => telemetry.read() } : undefined;
  try {
    // Scenario cases of the dev UI: a user simulator per app (a bad --user-simulator-model stops here).
    const userSimulator = web
      ? createUserSimulatorResolver({
          ...(options.userSimulatorModel !== undefined ? { model: options.userSimulatorModel } : {}),
          modelRegistry,
          loader,
        })
      : undefined;
    const server = createAgentServer({
      loader,
      sessionService: services.sessionService,
      artifactService: services.artifactService,
      memoryService: services.memoryService,
      credentialService: services.credentialService,
      modelRegistry,
      plugins: [...(traces ? [traces.plugin] : []), ...otelPlugins, ...(toolSimulator ? [toolSimulator] : [])],
      mode: options.mode,
      // The developer at the dev UI needs to see why a run failed (ADK's dev servers send the message too);
      // a server shared over a network or with authentication keeps internals to its log.
      exposeErrorMessages: options.mode === "web" && !auth.options && isLoopbackHost(options.host),
      ...(devUi ? { devUi } : {}),
      host: options.host,
      ...(options.allowedHosts?.length ? { allowedHosts: options.allowedHosts } : {}),
      ...(auth.options ? { auth: auth.options } : {}),
      logger,
      ...(otel ? { onRunQueueWait: (ms: number, app: string) => otel.export.recordRunQueueWait(ms, app) } : {}),
      ...(options.allowOrigins.length > 0 ? { cors: { allowOrigins: options.allowOrigins } } : {}),
      ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(services.sessionLock ? { sessionLock: services.sessionLock } : {}),
      ...(options.sessionLockWaitMs !== undefined ? { sessionLockWaitMs: options.sessionLockWaitMs } : {}),
      ...(options.idleMemoryMs !== undefined
        ? { reduceMemoryWhenIdle: options.idleMemoryMs === 0 ? false : { afterMs: options.idleMemoryMs } }
        : {}),
    });
    // Made when the Express app is built (`Router()` loads Express): an API server whose requests
    // are all agent flows never builds it.
    server.mount(() => createGraphRouter(server.context));
    if (devtools && traces && telemetry) {
      // Every dev router goes through the dev tooling gate, in this order: the dev UI's own
      // (telemetry consent, builder, agent tests), then traces and evals.
      for (const router of devtools.createAppDevRouters({ loader, modelRegistry, telemetry }))
        server.mountDevTools(router);
      server.mountDevTools(devtools.createDebugRouter({ traces }));
      const evalStore = devtools.createFileEvalStore({ dir: join(agentsDir, ".agentkit", "evals") });
      server.mountDevTools(
        devtools.createEvalRouter({
          ...server.context,
          evalStore,
          ...(toolSimulator ? { toolSimulator } : {}),
          ...(userSimulator ? { userSimulator } : {}),
        }),
      );
    }
    if (options.a2a) {
      const { createA2aRoutes } = await import("./a2a-routes.js");
      server.mount(() => createA2aRoutes(server.context, { authenticated: auth.options !== undefined }));
    }
    // The dev UI's first page should not wait for Express: `agentkit web` builds the app now.
    if (options.mode === "web") void server.app;
    const { url, port } = await server.listen({ host: options.host, port: options.port });
    const apps = await loader.listApps();
    const log = options.log ?? process.stdout;
    const ms = Math.round(performance.now() - started);
    log.write(
      `agentkit ${options.mode === "web" ? "web" : "api-server"} ` +
        `on ${url}${options.mode === "web" ? ` (dev UI: ${url}/dev-ui/)` : ""} in ${ms} ms\n` +
        `  agents: ${agentsDir} ` +
        `(${apps.length ? apps.join(", ") : "no apps found"})${options.reload ? ", reload on" : ""}` +
        `${options.warmUp === false ? "" : ", warming up"}\n` +
        (options.a2a ? `  a2a: ${url}/a2a/{app} (agent cards at ${url}/a2a/{app}/.well-known/agent-card.json)\n` : "") +
        (auth.banner ? `  ${auth.banner}\n` : "") +
        (otel ? `  ${otel.banner}\n` : "") +
        `  sessions: ${services.describe.sessions}\n  artifacts: ${services.describe.artifacts}\n  ` +
        `memory: ${services.describe.memory}\n  credentials: ${services.describe.credentials}\n`,
    );
    // Apps, their models' SDKs and the framework's code paths load now, between requests: the
    // server answers from the start, and a request for an app not loaded yet loads it itself
    // (`/readyz` answers 200 once every app loads, so a balancer waits for a warm replica).
    const warmedUp = options.warmUp === false ? Promise.resolve(undefined) : warmUpAfterListen(server, log, logger);
    return {
      get app() {
        return server.app;
      },
      url,
      port,
      apps,
      warmedUp,
      // Each step runs even when one before it failed (an app's plugin whose close throws must
      // not leave the database pools and clients open); the failures are thrown at the end.
      close: () =>
        settleInOrder(
          [
            () => server.close(),
            () => traces?.shutdown(),
            // Bounded: a receiver that is down delays shutdown by at most the export's timeout.
            () => otel?.export.shutdown(),
            () => loader.close(),
            () => services.close(),
          ],
          (n) => `Closing the dev server: ${n} steps failed`,
        ),
    };
  } catch (error) {
    // The start-up error is the one to report; a failure to clean up after it is not.
    await settleInOrder(
      [() => traces?.shutdown(), () => otel?.export.shutdown(), () => loader.close(), () => services.close()],
      (n) => `${n} clean-up steps failed`,
    ).catch(() => undefined);
    throw error;
  }
}

/** The server's warm-up, yielding to requests; its end is logged (never rejects). */
async function warmUpAfterListen(
  server: AgentServer,
  log: Pick<NodeJS.WritableStream, "write">,
  logger: ServerLogger,
): Promise<ServerWarmUp | undefined> {
  try {
    const warm = await server.warmUp({ yieldToRequests: true });
    if (warm.completed) log.write(`agentkit: warmed up in ${warm.ms} ms\n`);
    return warm;
  } catch (error) {
    logger.warn(`Warm-up failed: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** `--otel`: reads the OTEL_* variables (a bad one is a usage error) and starts the export. */
async function startOtel(
  options: StartDevServerOptions,
  env: NodeJS.ProcessEnv,
  logger: ServerLogger,
  scrub: (text: string) => string,
): Promise<{ export: OtelExport; banner: string }> {
  const { otelConfigFromEnv, startOtelExport } = await import("@agentkit/server/otel");
  let config: OtelConfig;
  try {
    config = otelConfigFromEnv(env);
  } catch (error) {
    throw new CliUsageError(`--otel: ${(error as Error).message}`);
  }
  for (const note of config.notes) logger.warn(`OpenTelemetry: ${note}`);
  const captureContent = options.otel?.captureContent === true || config.captureContent;
  const signals = (["traces", "metrics", "logs"] as const)
    .map((signal) => {
      const target = config[signal];
      // The origin only: a URL's path or query may carry a token.
      return target ? `${signal} ${new URL(target.url).origin}` : undefined;
    })
    .filter(Boolean);
  return {
    // The log's secret masking also applies to what is exported (span content, log records).
    export: startOtelExport({ config, logger, captureContent, redact: scrub }),
    banner:
      `otel: ${signals.length ? signals.join(", ") : "every signal off"} (service ${config.serviceName}` +
      `${captureContent ? ", with prompt and response content" : ""})`,
  };
}

/**
 * The UI folder to serve: `--dev-ui-dir` (checked: it must hold an index.html), else the built
 * @agentkit/dev-ui; without a built UI (`pnpm --filter @agentkit/dev-ui run build:ui`) the
 * server shows a page saying so.
 */
function devUiDirOption(dir: string | undefined): { dir?: string } {
  if (dir !== undefined) {
    const absolute = resolve(dir);
    if (!existsSync(join(absolute, "index.html")))
      throw new CliUsageError(
        `--dev-ui-dir: no index.html in ${absolute} (point it at a built dev UI, e.g. ` +
          `node_modules/@google/adk-devtools/dist/browser).`,
      );
    return { dir: absolute };
  }
  return existsSync(join(devUiDir(), "index.html")) ? { dir: devUiDir() } : {};
}
