import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { devUiDir } from "@agentkit/dev-ui";
import { createModelRegistry } from "@agentkit/models";
import {
  createAgentServer,
  createDebugRouter,
  createDirectoryAgentLoader,
  createEvalRouter,
  createFileEvalStore,
  createGraphRouter,
  createTraceRecorder,
} from "@agentkit/server";
import { createA2aRoutes } from "./a2a-routes.js";
import { CliUsageError } from "./cli-usage-error.js";
import { createServices } from "./create-services.js";
import { devServerBuiltInCodeExecutors } from "./dev-server-code-executors.js";
import { devServerBuiltInTools } from "./dev-server-tools.js";
import { createLogger } from "./create-logger.js";
import type { ServeOptions } from "./parse-cli-args.js";

export interface StartDevServerOptions extends ServeOptions {
  mode: "web" | "api";
  /** Where the startup banner goes (default stdout). */
  log?: NodeJS.WritableStream;
}

export interface RunningDevServer {
  url: string;
  port: number;
  apps: string[];
  close(): Promise<void>;
}

/**
 * The composition root: the only place that knows concrete backends. Loads the agents
 * directory, opens the services named by URIs, builds the server with tracing, graphs and
 * evals, listens, and prints the URL and the apps.
 */
export async function startDevServer(options: StartDevServerOptions): Promise<RunningDevServer> {
  const started = performance.now();
  const agentsDir = resolve(options.agentsDir);
  const devUi = options.mode === "web" ? devUiOption(options.devUiDir) : {};
  const modelRegistry = createModelRegistry();
  const loader = createDirectoryAgentLoader({
    agentsDir,
    reload: options.reload,
    modelRegistry,
    builtInTools: devServerBuiltInTools(),
    builtInCodeExecutors: devServerBuiltInCodeExecutors(),
  });
  const services = await createServices(options, { agentsDir });
  const traces = createTraceRecorder();
  const evalStore = createFileEvalStore({ dir: join(agentsDir, ".agentkit", "evals") });
  try {
    const server = createAgentServer({
      loader,
      sessionService: services.sessionService,
      artifactService: services.artifactService,
      memoryService: services.memoryService,
      modelRegistry,
      plugins: [traces.plugin],
      mode: options.mode,
      // The developer at the dev UI needs to see why a run failed (ADK's dev servers send the message too).
      exposeErrorMessages: options.mode === "web",
      ...devUi,
      host: options.host,
      logger: createLogger(options.logLevel, undefined, dirname(agentsDir)),
      ...(options.allowOrigins.length > 0 ? { cors: { allowOrigins: options.allowOrigins } } : {}),
      ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
    });
    server.mount(createDebugRouter({ traces }));
    server.mount(createGraphRouter(server.context));
    server.mount(createEvalRouter({ ...server.context, evalStore }));
    if (options.a2a) server.mount(createA2aRoutes(server.context));
    const { url, port } = await server.listen({ host: options.host, port: options.port });
    const apps = await loader.listApps();
    const log = options.log ?? process.stdout;
    const ms = Math.round(performance.now() - started);
    log.write(
      `agentkit ${options.mode === "web" ? "web" : "api-server"} on ${url}${options.mode === "web" ? ` (dev UI: ${url}/dev-ui/)` : ""} in ${ms} ms\n` +
        `  agents: ${agentsDir} (${apps.length ? apps.join(", ") : "no apps found"})${options.reload ? ", reload on" : ""}\n` +
        (options.a2a ? `  a2a: ${url}/a2a/{app} (agent cards at ${url}/a2a/{app}/.well-known/agent-card.json)\n` : "") +
        `  sessions: ${services.describe.sessions}\n  artifacts: ${services.describe.artifacts}\n  memory: ${services.describe.memory}\n`,
    );
    return {
      url,
      port,
      apps,
      async close() {
        await server.close();
        await traces.shutdown();
        await loader.close();
        await services.close();
      },
    };
  } catch (error) {
    await traces.shutdown();
    await loader.close();
    await services.close();
    throw error;
  }
}

/**
 * The UI folder to serve: `--dev-ui-dir` (checked: it must hold an index.html), else the built
 * @agentkit/dev-ui; without a built UI (`pnpm --filter @agentkit/dev-ui run build:ui`) the
 * server shows a page saying so.
 */
function devUiOption(dir: string | undefined): { devUi?: { dir: string } } {
  if (dir !== undefined) {
    const absolute = resolve(dir);
    if (!existsSync(join(absolute, "index.html")))
      throw new CliUsageError(
        `--dev-ui-dir: no index.html in ${absolute} (point it at a built dev UI, e.g. node_modules/@google/adk-devtools/dist/browser).`,
      );
    return { devUi: { dir: absolute } };
  }
  return existsSync(join(devUiDir(), "index.html")) ? { devUi: { dir: devUiDir() } } : {};
}
