import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { resolve } from "node:path";
import {
  getFunctionCalls,
  getFunctionResponses,
  getTextOf,
  InMemoryRunner,
  isFinalResponse,
  LlmAgent,
  SequentialAgent,
  type Event,
} from "@agentkit/core";
import { createDirectoryAgentLoader } from "../../src/loader/index.js";

// The repository's example agents, loaded the way the dev server loads them, on their offline demo model.
const examplesDir = resolve(import.meta.dirname, "../../../../examples/agents");
const MODEL_ENV = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "AGENTKIT_EXAMPLE_MODEL"];
const savedEnv: Record<string, string | undefined> = {};
beforeAll(() => {
  for (const key of MODEL_ENV) {
    savedEnv[key] = process.env[key];
    delete process.env[key];
  }
});
afterAll(() => {
  for (const key of MODEL_ENV) if (savedEnv[key] !== undefined) process.env[key] = savedEnv[key];
});

async function ask(
  runner: InMemoryRunner,
  appName: string,
  text: string,
): Promise<{ events: Event[]; state: Record<string, unknown> }> {
  const session = await runner.sessionService.createSession({ appName, userId: "u" });
  const events: Event[] = [];
  for await (const e of runner.runAsync({
    userId: "u",
    sessionId: session.id,
    newMessage: { role: "user", parts: [{ text }] },
  }))
    events.push(e);
  const stored = await runner.sessionService.getSession({ appName, userId: "u", sessionId: session.id });
  return { events, state: stored?.state ?? {} };
}

describe("examples/agents through the directory loader", () => {
  const loader = createDirectoryAgentLoader({ agentsDir: examplesDir });
  afterAll(() => loader.close());

  it("lists the example apps (not _shared, test or node_modules)", async () => {
    const apps = await loader.listApps();
    expect(apps).toEqual(expect.arrayContaining(["assistant", "yaml_pipeline"]));
    for (const name of ["_shared", "test", "node_modules"]) expect(apps).not.toContain(name);
  });

  it("loads the assistant (agent.ts) and runs it with its demo model through a Runner", async () => {
    const { rootAgent, source } = await loader.loadApp("assistant");
    expect(source).toBe(resolve(examplesDir, "assistant/agent.ts"));
    expect(rootAgent).toBeInstanceOf(LlmAgent);
    expect((rootAgent as LlmAgent).model).toMatchObject({ model: "demo-model" });
    const runner = new InMemoryRunner({ agent: rootAgent, appName: "assistant" });
    const { events } = await ask(runner, "assistant", "What time is it in Europe/Paris?");
    expect(getFunctionCalls(events[0]!)).toEqual([
      expect.objectContaining({ name: "get_current_time", args: { timezone: "Europe/Paris" } }),
    ]);
    const last = events.at(-1)!;
    expect(isFinalResponse(last)).toBe(true);
    expect(getTextOf(last.content)).toMatch(/^It is \d\d:\d\d:\d\d in Europe\/Paris\. \(demo model\)$/);
    await runner.close();
  });

  it("loads the YAML pipeline (SequentialAgent of two LlmAgents) and runs it offline", async () => {
    const { rootAgent, source } = await loader.loadApp("yaml_pipeline");
    expect(source).toBe(resolve(examplesDir, "yaml_pipeline/root_agent.yaml"));
    expect(rootAgent).toBeInstanceOf(SequentialAgent);
    expect(rootAgent.subAgents.map((a) => a.name)).toEqual(["roller", "announcer"]);
    const runner = new InMemoryRunner({ agent: rootAgent, appName: "yaml_pipeline" });
    const { events, state } = await ask(runner, "yaml_pipeline", "roll a 20-sided die");
    const call = events.flatMap(getFunctionCalls)[0];
    expect(call).toMatchObject({ name: "roll_die", args: { sides: 20 } });
    const rolled = events.flatMap(getFunctionResponses)[0]?.response as { result: number };
    expect(rolled.result).toBeGreaterThanOrEqual(1);
    expect(rolled.result).toBeLessThanOrEqual(20);
    expect(state.last_roll).toBe(`I rolled a 20-sided die and got ${rolled.result}. (demo model)`);
    const finals = events.filter((e) => isFinalResponse(e) && getTextOf(e.content));
    expect(finals.map((e) => e.author)).toEqual(["roller", "announcer"]);
    expect(getTextOf(finals[1]!.content)).toContain(String(rolled.result));
    await runner.close();
  });
});
