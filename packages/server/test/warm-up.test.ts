import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  BaseLlm,
  ConfigurationError,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  ModelRegistry,
  type LlmResponse,
} from "@agentkit/core";
import { lazySchemasBuilt } from "@agentkit/core/internal";
import { createAgentServer, createDirectoryAgentLoader, type AgentServer } from "../src/index.js";
import { warmUpApps } from "../src/runs/warm-up-apps.js";
import { warmUpHttp } from "../src/runs/warm-up-http.js";
import { RunnerCache } from "../src/runs/runner-cache.js";
import { createStaticAgentLoader } from "../src/static-agent-loader.js";
import { makeAgentsDir, type TempAgentsDir } from "./loader/agents-dir.js";
import { post } from "./support/test-server.js";

/** Counts warm-ups; answers "ready" once warmed (a cold call is a failure of the test). */
class WarmableModel extends BaseLlm {
  warmUps = 0;
  override async warmUp(): Promise<void> {
    this.warmUps += 1;
    if (this.model === "warm-no-key") throw new ConfigurationError("warm-no-key: no API key");
  }
  override async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    yield { content: { role: "model", parts: [{ text: this.warmUps > 0 ? "ready" : "cold" }] } };
  }
}

/** A registry whose `warm-*` models are `WarmableModel`s, each kept in `models` by name. */
function countingRegistry(models: Map<string, WarmableModel>): ModelRegistry {
  return new ModelRegistry().register(/^warm-/, (name) => {
    const model = new WarmableModel({ model: name });
    models.set(name, model);
    return model;
  });
}

/** A server on the agents folder, in-memory services, its warnings kept in `warnings`. */
function serverOn(agentsDir: string, modelRegistry: ModelRegistry, warnings: string[]): AgentServer {
  return createAgentServer({
    loader: createDirectoryAgentLoader({ agentsDir, modelRegistry }),
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    modelRegistry,
    logger: { error: () => {}, warn: (message) => warnings.push(message), info: () => {} },
  });
}

describe("AgentServer.warmUp", () => {
  let agents: TempAgentsDir;
  let server: AgentServer;
  let url: string;
  const models = new Map<string, WarmableModel>();
  const warnings: string[] = [];

  beforeAll(async () => {
    agents = await makeAgentsDir({
      "good/agent.ts":
        'import { LlmAgent } from "@agentkit/core";\n' +
        'export const rootAgent = new LlmAgent({ name: "good", model: "warm-model", instruction: "Hi." });\n',
      "keyless/agent.ts":
        'import { LlmAgent } from "@agentkit/core";\n' +
        'export const rootAgent = new LlmAgent({ name: "keyless", model: "warm-no-key" });\n',
      "broken/agent.ts": 'throw new Error("this app cannot load");\n',
    });
    server = serverOn(agents.dir, countingRegistry(models), warnings);
  });

  afterAll(async () => {
    await server?.close();
    await agents?.cleanup();
  });

  it("loads every app and warms its models before any request; a failing app is reported, not thrown", async () => {
    expect(models.size).toBe(0);
    const report = await server.warmUp();
    const byApp = Object.fromEntries(report.apps.map((a) => [a.app, a]));
    expect(Object.keys(byApp).sort()).toEqual(["broken", "good", "keyless"]);
    expect(byApp.good).toEqual({ app: "good", models: ["warm-model"], problems: [] });
    expect(byApp.keyless!.models).toEqual([]);
    expect(byApp.keyless!.problems).toEqual([expect.stringContaining("warm-no-key: no API key")]);
    expect(byApp.broken!.problems).toEqual([expect.stringContaining("this app cannot load")]);
    expect(models.get("warm-model")!.warmUps).toBe(1);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('Warm-up of app "broken"'),
        expect.stringContaining('Warm-up of app "keyless"'),
      ]),
    );
    expect(report.ms).toBeGreaterThanOrEqual(0);
    expect(report.routes).toBe(true);
  });

  it("the first flow runs on the warmed app and model and builds no request parser", async () => {
    ({ url } = await server.listen({ port: 0 }));
    const schemasBefore = lazySchemasBuilt();
    // An agent flow as a Python client sends it: a session create, then /run.
    expect((await post(`${url}/apps/good/users/u/sessions`, { session_id: "s1" })).status).toBe(200);
    const res = await post(`${url}/run`, {
      appName: "good",
      userId: "u",
      sessionId: "s1",
      newMessage: { role: "user", parts: [{ text: "hi" }] },
    });
    expect(res.status).toBe(200);
    const events = (await res.json()) as { content?: { parts?: { text?: string }[] } }[];
    expect(events.at(-1)?.content?.parts?.[0]?.text).toBe("ready");
    expect(models.get("warm-model")!.warmUps).toBe(1);
    // The warm-up built and compiled the flow's request schemas; the requests built none.
    expect(lazySchemasBuilt()).toBe(schemasBefore);
  });
});

/** A model whose answers wait for the test to open its gate, so a request stays in flight. */
class GatedModel extends BaseLlm {
  private open!: () => void;
  readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  private enter!: () => void;
  /** Settles when a request reached the model (it is in flight from then on). */
  readonly entered = new Promise<void>((resolve) => (this.enter = resolve));
  release(): void {
    this.open();
  }
  override async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    this.enter();
    await this.gate;
    yield { content: { role: "model", parts: [{ text: "released" }] } };
  }
}

/** Event-loop turns in which nothing else can happen in the test (no timers, no I/O of ours). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe("AgentServer.warmUp after listen, yielding to requests", () => {
  let agents: TempAgentsDir;

  beforeAll(async () => {
    // "good" sorts before "hold": the warm-up's first step is "good".
    agents = await makeAgentsDir({
      "good/agent.ts":
        'import { LlmAgent } from "@agentkit/core";\n' +
        'export const rootAgent = new LlmAgent({ name: "good", model: "warm-model", instruction: "Hi." });\n',
      "hold/agent.ts":
        'import { LlmAgent } from "@agentkit/core";\n' +
        'export const rootAgent = new LlmAgent({ name: "hold", model: "gated-model", instruction: "Hi." });\n',
    });
  });
  afterAll(async () => {
    await agents?.cleanup();
  });

  async function start() {
    const warm = new Map<string, WarmableModel>();
    const gated = new GatedModel({ model: "gated-model" });
    const warnings: string[] = [];
    const server = serverOn(
      agents.dir,
      countingRegistry(warm).register(/^gated-/, () => gated),
      warnings,
    );
    const { url } = await server.listen({ port: 0 });
    expect((await post(`${url}/apps/hold/users/u/sessions/s1`, {})).status).toBe(200);
    // A run that stays in flight until the gate opens.
    const held = post(`${url}/run`, {
      appName: "hold",
      userId: "u",
      sessionId: "s1",
      newMessage: { role: "user", parts: [{ text: "hi" }] },
    });
    await gated.entered;
    return { server, gated, held, warm, warnings };
  }

  it("takes no step while a request is in flight, then warms every app", async () => {
    const { server, gated, held, warm } = await start();
    try {
      let report: Awaited<ReturnType<AgentServer["warmUp"]>> | undefined;
      const warming = server.warmUp({ yieldToRequests: true }).then((r) => (report = r));
      await turns(50);
      // Its first step (app "good") waits for the run to end.
      expect(warm.size).toBe(0);
      expect(report).toBeUndefined();
      gated.release();
      expect((await held).status).toBe(200);
      await warming;
      expect(report!.completed).toBe(true);
      expect(report!.apps.map((a) => a.app)).toEqual(["good", "hold"]);
      expect(warm.get("warm-model")!.warmUps).toBe(1);
    } finally {
      gated.release();
      await server.close();
    }
  });

  it("a warm-up without yieldToRequests does not wait for requests", async () => {
    const { server, gated, held, warm } = await start();
    try {
      const report = await server.warmUp();
      expect(report.completed).toBe(true);
      expect(warm.get("warm-model")!.warmUps).toBe(1);
      gated.release();
      expect((await held).status).toBe(200);
    } finally {
      gated.release();
      await server.close();
    }
  });

  it("close stops a waiting warm-up before its next step, silently", async () => {
    const { server, gated, held, warm, warnings } = await start();
    const warming = server.warmUp({ yieldToRequests: true });
    await turns(20);
    const closed = server.close();
    const report = await warming;
    expect(report).toEqual({ apps: [], completed: false, routes: false, ms: expect.any(Number) });
    expect(warm.size).toBe(0);
    gated.release();
    await held;
    await closed;
    expect(warnings.filter((w) => w.startsWith("Warm-up"))).toEqual([]);
  });
});

/** How many of the process's active resources are of each kind (servers, sockets, timers). */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

describe("the warm-up's HTTP step", () => {
  it("answers every flow of a private server made by the given factory, then leaves nothing open", async () => {
    const made: AgentServer[] = [];
    const before = resources();
    const answered = await warmUpHttp((options) => {
      // The private server: loopback, API mode, in-memory, on the private agent only.
      expect(options.mode).toBe("api");
      const server = createAgentServer(options);
      made.push(server);
      return server;
    });
    // Ten session creates and ten /run, then one /run_sse.
    expect(answered).toBe(21);
    expect(made).toHaveLength(1);
    expect(await made[0]!.context.loader.listApps()).toEqual(["agentkit_warm_up"]);
    // Its listener and both ends of its connection are closed once the step returns (libuv
    // finishes closing a handle in a later turn of the event loop).
    const open = (counts: Map<string, number>) => [counts.get("TCPServerWrap") ?? 0, counts.get("TCPSocketWrap") ?? 0];
    for (let turn = 0; turn < 20 && open(resources()).join() !== open(before).join(); turn += 1) await turns(1);
    expect(open(resources())).toEqual(open(before));
  });

  it("throws when a flow is not answered as an agent flow", async () => {
    // A server without the private app: its /run answers 404.
    await expect(
      warmUpHttp((options) => createAgentServer({ ...options, loader: createStaticAgentLoader({ apps: {} }) })),
    ).rejects.toThrow("POST /run answered 404");
  });

  it("a failing HTTP step is a warning and `routes: false`; the warm-up still completes", async () => {
    const warnings: string[] = [];
    const loader = createStaticAgentLoader({ apps: {} });
    const runners = new RunnerCache({
      loader,
      sessionService: new InMemorySessionService(),
      artifactService: new InMemoryArtifactService(),
      memoryService: new InMemoryMemoryService(),
    });
    try {
      const report = await warmUpApps(
        loader,
        runners,
        { error: () => {}, warn: (message) => warnings.push(message), info: () => {} },
        {
          routes: async () => {
            throw new Error("listen EADDRNOTAVAIL 127.0.0.1");
          },
        },
      );
      expect(report).toEqual({ apps: [], completed: true, routes: false, ms: expect.any(Number) });
      expect(warnings).toEqual([expect.stringContaining("listen EADDRNOTAVAIL 127.0.0.1")]);
    } finally {
      await runners.close();
    }
  });
});
