import { afterAll, describe, expect, it } from "@jest/globals";
import { resolve } from "node:path";
import {
  AgentTool,
  BaseLlm,
  exitLoopTool,
  FunctionTool,
  getFunctionCalls,
  getTextOf,
  InMemoryRunner,
  LlmAgent,
  LoopAgent,
  ModelRegistry,
  ParallelAgent,
  SequentialAgent,
  createUserContent,
  type Event,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { createDirectoryAgentLoader } from "../../src/loader/index.js";
import { EchoToolset } from "./fixtures/agents/_shared/tools.js";
import { cannedReply, markStarted, tagToolResult } from "./fixtures/agents/llm_app/callbacks.js";
import { answerSchema, questionSchema } from "./fixtures/agents/llm_app/schemas.js";
import { lookupTool } from "./fixtures/agents/llm_app/tools.js";

const fixturesDir = resolve(import.meta.dirname, "fixtures/agents");

/** Answers "<agent>: done"; calls exit_loop whenever the agent has that tool. */
class FixtureModel extends BaseLlm {
  readonly calls: string[] = [];
  constructor() {
    super({ model: "fixture-model" });
  }
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    const agent = /You are an agent\. Your internal name is "(\w+)"/.exec(systemText(request))?.[1] ?? "?";
    this.calls.push(agent);
    const answered = request.contents.at(-1)?.parts?.some((p) => p.functionResponse);
    if ("exit_loop" in request.toolsDict && !answered) {
      yield { content: { role: "model", parts: [{ functionCall: { name: "exit_loop", args: {} } }] } };
      return;
    }
    yield { content: { role: "model", parts: [{ text: `${agent}: done` }] } };
  }
}

function systemText(request: LlmRequest): string {
  const si = request.config.systemInstruction;
  if (!si) return "";
  return typeof si === "string" ? si : (si.parts ?? []).map((p) => p.text ?? "").join("");
}

describe("YAML agent configs", () => {
  const loader = createDirectoryAgentLoader({ agentsDir: fixturesDir });
  afterAll(() => loader.close());

  it("builds an LlmAgent with every field: model, instructions, tools, callbacks, schemas, settings", async () => {
    const { rootAgent, source } = await loader.loadApp("llm_app");
    expect(source).toBe(resolve(fixturesDir, "llm_app/root_agent.yaml"));
    expect(rootAgent).toBeInstanceOf(LlmAgent);
    const agent = rootAgent as LlmAgent;
    expect(agent.name).toBe("helper");
    expect(agent.description).toBe("Looks words up.");
    expect(agent.model).toBe("fixture-model");
    expect(agent.instruction).toBe("Answer about {topic?}.");
    expect(agent.staticInstruction).toBe("You are a careful assistant.");
    expect(agent.outputKey).toBe("last_answer");
    expect(agent.includeContents).toBe("none");
    expect(agent.disallowTransferToParent).toBe(true);
    expect(agent.disallowTransferToPeers).toBe(true);
    expect(agent.generateContentConfig).toEqual({
      temperature: 0.2,
      maxOutputTokens: 256,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 128 },
      labels: { team_name: "docs" },
    });
    // Built-in by name, an instance, a factory with args (via
    // ./tools.js → tools.ts), a toolset class, ADK's dotted path.
    expect(agent.tools[0]).toBe(exitLoopTool);
    expect(agent.tools[1]).toBe(lookupTool);
    expect(agent.tools[2]).toBeInstanceOf(FunctionTool);
    expect((agent.tools[2] as FunctionTool).name).toBe("count");
    expect(agent.tools[3]).toBeInstanceOf(EchoToolset);
    expect((agent.tools[3] as EchoToolset).prefix).toBe("shared");
    expect(agent.tools[4]).toBe(lookupTool);
    expect(agent.beforeAgentCallback).toEqual([markStarted]);
    expect(agent.afterToolCallback).toEqual([tagToolResult]);
    expect(Array.isArray(agent.beforeModelCallback) && agent.beforeModelCallback.length).toBe(1);
    expect(cannedReply).toBeInstanceOf(Function);
    expect(agent.inputSchema).toBe(questionSchema);
    expect(agent.outputSchema).toBe(answerSchema);
  });

  it("runs the LlmAgent: the before-agent callback writes state, the before-model callback factory answers", async () => {
    const { rootAgent } = await loader.loadApp("llm_app");
    const runner = new InMemoryRunner({ agent: rootAgent, appName: "llm_app" });
    const session = await runner.sessionService.createSession({ appName: "llm_app", userId: "u" });
    const events: Event[] = [];
    for await (const e of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: createUserContent("hi") }))
      events.push(e);
    expect(events.map((e) => getTextOf(e.content)).filter(Boolean)).toEqual(["canned answer"]);
    const stored = await runner.sessionService.getSession({ appName: "llm_app", userId: "u", sessionId: session.id });
    expect(stored?.state).toMatchObject({ started_helper: true });
    await runner.close();
    expect((rootAgent as LlmAgent).tools[3]).toMatchObject({ closed: true });
  });

  it("builds sequential, parallel and loop agents from inline configs, config_path files and code references", async () => {
    const { rootAgent } = await loader.loadApp("workflow");
    expect(rootAgent).toBeInstanceOf(SequentialAgent);
    expect(rootAgent.subAgents.map((a) => a.name)).toEqual(["drafter", "fan_out", "refine_loop", "reviewer"]);
    const [drafter, fanOut, loop, reviewer] = rootAgent.subAgents;
    expect(drafter).toBeInstanceOf(LlmAgent);
    expect((drafter as LlmAgent).outputKey).toBe("draft");
    expect(fanOut).toBeInstanceOf(ParallelAgent);
    expect(fanOut?.subAgents.map((a) => a.name)).toEqual(["left", "right"]);
    expect(loop).toBeInstanceOf(LoopAgent);
    expect((loop as LoopAgent).maxIterations).toBe(3);
    const refiner = loop?.subAgents[0] as LlmAgent;
    expect(refiner.tools[0]).toBe(exitLoopTool);
    expect(refiner.tools[1]).toBeInstanceOf(AgentTool);
    expect((refiner.tools[1] as AgentTool).name).toBe("critic");
    expect(reviewer).toBeInstanceOf(LlmAgent);
    expect(reviewer?.description).toBe("Reviews the draft.");
    expect(rootAgent.beforeAgentCallback).toEqual([markStarted]);
  });

  it("runs the workflow tree end to end with model names resolved by the runner's registry", async () => {
    const { rootAgent } = await loader.loadApp("workflow");
    const model = new FixtureModel();
    const registry = new ModelRegistry().register("fixture-model", () => model);
    const runner = new InMemoryRunner({ agent: rootAgent, appName: "workflow", modelRegistry: registry });
    const session = await runner.sessionService.createSession({ appName: "workflow", userId: "u" });
    const events: Event[] = [];
    for await (const e of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: createUserContent("go") }))
      events.push(e);
    // Each agent in order (left and right in parallel); the loop ends in its first round: exit_loop
    // escalates and skips summarization, so the refiner calls the model once.
    expect(model.calls[0]).toBe("drafter");
    expect(new Set(model.calls.slice(1, 3))).toEqual(new Set(["left", "right"]));
    expect(model.calls.slice(3)).toEqual(["refiner", "reviewer"]);
    expect(events.some((e) => getFunctionCalls(e).some((c) => c.name === "exit_loop"))).toBe(true);
    const stored = await runner.sessionService.getSession({ appName: "workflow", userId: "u", sessionId: session.id });
    expect(stored?.state).toMatchObject({ started_pipeline: true, draft: "drafter: done" });
    await runner.close();
  });
});
