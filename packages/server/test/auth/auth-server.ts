// A server with authentication on, built the way apps/dev-server builds it (debug, graph and
// eval routers mounted, dev routes over an agents directory), for the auth tests.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryArtifactService, InMemoryMemoryService, InMemorySessionService, LlmAgent } from "@agentkit/core";
import { ScriptedLiveModel, ScriptedModel } from "@agentkit/core/testing";
import {
  apiKeyAuthenticator,
  createAgentServer,
  createGraphRouter,
  createStaticAgentLoader,
  type AgentServer,
  type AgentServerOptions,
  type ServerLogger,
} from "../../src/index.js";
import {
  createAppDevRouters,
  createDebugRouter,
  createEvalRouter,
  createInMemoryEvalStore,
  createTraceRecorder,
  memoryTelemetryConsent,
  type TraceRecorder,
} from "../../src/devtools.js";
import { checklistAgent } from "../support/test-server.js";

/** Three principals: two plain users and an admin (user "root"). */
export const KEYS = {
  alice: "alice-key-0123456789abcdef",
  bob: "bob-key-0123456789abcdef0",
  admin: "admin-key-0123456789abcdef",
} as const;

export const KEYS_TEXT = [
  "# agentkit API keys: <key> <userId> [scope…]",
  `${KEYS.alice} alice read`,
  "",
  `${KEYS.bob} bob`,
  `${KEYS.admin} root admin`,
].join("\n");

export const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });

/** A logger keeping every line, debug included. */
export function keepingLogger(): ServerLogger & { errors: unknown[]; lines: string[] } {
  const errors: unknown[] = [];
  const lines: string[] = [];
  return {
    errors,
    lines,
    error: (message, error) => {
      errors.push(error ?? message);
      lines.push(`error ${message}`);
    },
    warn: (message) => lines.push(`warn ${message}`),
    info: (message) => lines.push(`info ${message}`),
    debug: (message) => lines.push(`debug ${message}`),
  };
}

export interface AuthTestServer {
  server: AgentServer;
  url: string;
  port: number;
  model: ScriptedModel;
  liveModel: ScriptedLiveModel;
  sessionService: InMemorySessionService;
  traces: TraceRecorder;
  logger: ReturnType<typeof keepingLogger>;
  agentsDir: string;
  close(): Promise<void>;
}

/**
 * The real server on 127.0.0.1:0 (or `listen`'s host) with apps `A` (scripted model) and
 * `live_app` (scripted live model), API-key auth over `KEYS`, the dev UI from a folder, and the
 * routers apps/dev-server mounts.
 */
export async function startAuthServer(
  options: Partial<AgentServerOptions> & { listenHost?: string } = {},
): Promise<AuthTestServer> {
  const agentsDir = await mkdtemp(join(tmpdir(), "agentkit-auth-"));
  const uiDir = join(agentsDir, ".ui");
  await mkdir(uiDir);
  await writeFile(join(uiDir, "index.html"), "<!doctype html><title>ui</title>");
  const model = new ScriptedModel();
  const liveModel = new ScriptedLiveModel();
  const sessionService = new InMemorySessionService();
  const traces = createTraceRecorder();
  const logger = keepingLogger();
  const { listenHost, ...rest } = options;
  const loader = {
    ...createStaticAgentLoader({
      apps: { A: checklistAgent(model), live_app: new LlmAgent({ name: "voice", model: liveModel }) },
    }),
    agentsDir,
  };
  const server = createAgentServer({
    loader,
    sessionService,
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    mode: "web",
    devUi: { dir: uiDir },
    plugins: [traces.plugin],
    logger,
    auth: apiKeyAuthenticator({ text: KEYS_TEXT, source: "test keys" }),
    ...rest,
  });
  for (const router of createAppDevRouters({ loader, telemetry: memoryTelemetryConsent() }))
    server.mountDevTools(router);
  server.mount(createDebugRouter({ traces }));
  server.mount(createGraphRouter(server.context));
  server.mount(createEvalRouter({ ...server.context, evalStore: createInMemoryEvalStore() }));
  const { url, port } = await server.listen({ host: listenHost ?? "127.0.0.1", port: 0 });
  return {
    server,
    url,
    port,
    model,
    liveModel,
    sessionService,
    traces,
    logger,
    agentsDir,
    close: async () => {
      await server.close();
      await traces.shutdown();
      await rm(agentsDir, { recursive: true, force: true });
    },
  };
}

/** A raw request with any Host header (fetch will not let us forge one). */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers: Record<string, string> },
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: options.method ?? "GET", path: options.path, headers: options.headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}
