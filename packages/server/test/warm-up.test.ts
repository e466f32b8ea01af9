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
import { createAgentServer, createDirectoryAgentLoader, type AgentServer } from "../src/index.js";
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
    const modelRegistry = new ModelRegistry().register(/^warm-/, (name) => {
      const model = new WarmableModel({ model: name });
      models.set(name, model);
      return model;
    });
    server = createAgentServer({
      loader: createDirectoryAgentLoader({ agentsDir: agents.dir, modelRegistry }),
      sessionService: new InMemorySessionService(),
      artifactService: new InMemoryArtifactService(),
      memoryService: new InMemoryMemoryService(),
      modelRegistry,
      logger: { error: () => {}, warn: (message) => warnings.push(message), info: () => {} },
    });
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
  });

  it("the first request runs on the warmed app and model", async () => {
    ({ url } = await server.listen({ port: 0 }));
    expect((await post(`${url}/apps/good/users/u/sessions/s1`, {})).status).toBe(200);
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
  });
});
