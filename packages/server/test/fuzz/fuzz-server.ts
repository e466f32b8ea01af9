// The servers the fuzz test attacks: the real createAgentServer with the debug, graph and eval
// routers, on file artifacts + SQLite sessions in a temp dir, or on the in-memory services.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { FileArtifactService } from "@agentkit/artifacts";
import {
  BaseLlm,
  FunctionTool,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  getTextOf,
  type BaseArtifactService,
  type BaseSessionService,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { ScriptedLiveModel } from "@agentkit/core/testing";
import { SqliteSessionService } from "@agentkit/sessions/sqlite";
import { createAgentServer, createGraphRouter, createStaticAgentLoader, type AgentServer } from "../../src/index.js";
import { createDebugRouter, createEvalRouter, createFileEvalStore, createTraceRecorder } from "../../src/devtools.js";
import { recordingLogger } from "../support/test-server.js";

/**
 * Answers every call at once: "save <name>" calls the `save` tool with that name (an artifact
 * save from inside a run, with whatever name the client chose), a tool response gets "done",
 * anything else "ok". Streaming runs get a partial chunk first.
 */
class FuzzModel extends BaseLlm {
  constructor() {
    super({ model: "fuzz-model" });
  }

  async *generateContentAsync(request: LlmRequest, stream = false): AsyncGenerator<LlmResponse, void, void> {
    const last = request.contents[request.contents.length - 1];
    const text = getTextOf(last);
    if (last?.parts?.some((p) => p.functionResponse)) {
      yield { content: { role: "model", parts: [{ text: "done" }] }, turnComplete: true };
      return;
    }
    if (text.startsWith("save ")) {
      yield {
        content: {
          role: "model",
          parts: [{ functionCall: { name: "save", args: { name: text.slice(5) }, id: "c1" } }],
        },
      };
      return;
    }
    if (stream) yield { content: { role: "model", parts: [{ text: "o" }] }, partial: true };
    yield { content: { role: "model", parts: [{ text: "ok" }] }, turnComplete: true };
  }
}

const saveTool = new FunctionTool({
  name: "save",
  description: "Saves an artifact under the given name.",
  parameters: z.object({ name: z.string() }),
  execute: async ({ name }, context) => ({ version: await context.saveArtifact(name, { text: "saved" }) }),
});

export interface FuzzServer {
  server: AgentServer;
  url: string;
  port: number;
  /** Absolute paths that must never reach a client (its temp dir). */
  secretPaths: string[];
  logger: ReturnType<typeof recordingLogger>;
  apps: { text: string; live: string };
  close(): Promise<void>;
}

export async function startFuzzServer(backends: "persistent" | "memory"): Promise<FuzzServer> {
  // Eval sets always go to files; sessions and artifacts too with the persistent backends.
  const dir = await mkdtemp(join(tmpdir(), "agentkit-fuzz-"));
  const persistent = backends === "persistent";
  const sessionService: BaseSessionService = persistent
    ? new SqliteSessionService({ path: join(dir, "sessions.db") })
    : new InMemorySessionService();
  const artifactService: BaseArtifactService = persistent
    ? new FileArtifactService({ rootDir: join(dir, "artifacts") })
    : new InMemoryArtifactService();
  const memoryService = new InMemoryMemoryService();
  const liveReply = () => [{ content: { role: "model", parts: [{ text: "heard" }] }, turnComplete: true }];
  const liveModel = new ScriptedLiveModel({ replies: Array.from({ length: 5000 }, () => liveReply) });
  const traces = createTraceRecorder();
  const logger = recordingLogger();
  const apps = { text: "fuzz", live: "fuzz_live" };
  const server = createAgentServer({
    loader: createStaticAgentLoader({
      apps: {
        [apps.text]: new LlmAgent({
          name: "fuzzer",
          model: new FuzzModel(),
          instruction: "Answer.",
          tools: [saveTool],
        }),
        [apps.live]: new LlmAgent({ name: "talker", model: liveModel, instruction: "Talk." }),
      },
    }),
    sessionService,
    artifactService,
    memoryService,
    plugins: [traces.plugin],
    logger,
    // The dev server's setting: unexpected errors' messages reach the client (never paths or stacks).
    exposeErrorMessages: true,
    bodyLimit: "512kb",
    limits: { live: { maxFrameBytes: 64 * 1024, maxQueuedBytes: 256 * 1024 } },
  });
  server.mount(createDebugRouter({ traces }));
  server.mount(createGraphRouter(server.context));
  server.mount(createEvalRouter({ ...server.context, evalStore: createFileEvalStore({ dir: join(dir, "evals") }) }));
  const { url, port } = await server.listen({ host: "127.0.0.1", port: 0 });
  return {
    server,
    url,
    port,
    secretPaths: [dir],
    logger,
    apps,
    async close() {
      await server.close();
      await traces.shutdown();
      await sessionService.close();
      await artifactService.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
