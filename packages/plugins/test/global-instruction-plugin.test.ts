import { describe, expect, it } from "@jest/globals";
import { ConfigurationError, InMemoryRunner, LlmAgent, getSystemInstructionText } from "@agentkit/core";
import { ContentsProbeModel, ScriptedModel } from "@agentkit/core/testing";
import { GlobalInstructionPlugin } from "../src/index.js";
import { runOnce } from "./helpers.js";

describe("GlobalInstructionPlugin", () => {
  it("puts the instruction before every agent's own, filling {state} placeholders", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const agent = new LlmAgent({ name: "helper", model, instruction: "Agent rules." });
    const runner = new InMemoryRunner({
      agent,
      appName: "plugins_test",
      plugins: [new GlobalInstructionPlugin({ instruction: "Company policy for {user:name}. Tier {tier?}." })],
    });
    const session = await runner.sessionService.createSession({
      appName: "plugins_test",
      userId: "u",
      state: { "user:name": "Ada" },
    });
    await runOnce(agent, [], "hi", runner, session.id);
    const system = getSystemInstructionText({ ...model.requests[0]!, toolsDict: {} });
    expect(system.startsWith("Company policy for Ada. Tier .\n\nAgent rules.")).toBe(true);
    await runner.close();
  });

  it("takes a function of the context, and applies to sub-agents too", async () => {
    const childModel = new ScriptedModel({ steps: [ScriptedModel.text("child answer")] });
    const child = new LlmAgent({ name: "child", model: childModel, description: "does the work" });
    const parentModel = new ScriptedModel({
      steps: [ScriptedModel.functionCall("transfer_to_agent", { agent_name: "child" })],
    });
    const parent = new LlmAgent({ name: "parent", model: parentModel, subAgents: [child] });
    const plugin = new GlobalInstructionPlugin({ instruction: (ctx) => `Global for ${ctx.agentName}.` });
    const { events } = await runOnce(parent, [plugin], "hi");
    expect(events.at(-1)!.content!.parts![0]!.text).toBe("child answer");
    expect(getSystemInstructionText({ ...parentModel.requests[0]!, toolsDict: {} })).toMatch(/^Global for parent\./);
    expect(getSystemInstructionText({ ...childModel.requests[0]!, toolsDict: {} })).toMatch(/^Global for child\./);
  });

  it("rejects a missing instruction and surfaces a missing required state key", async () => {
    expect(() => new GlobalInstructionPlugin({} as never)).toThrow(ConfigurationError);
    const agent = new LlmAgent({ name: "a", model: new ScriptedModel({ steps: [ScriptedModel.text("never")] }) });
    const run = runOnce(agent, [new GlobalInstructionPlugin({ instruction: "Hello {missing_key}" })], "hi");
    await expect(run).rejects.toThrow(/missing_key/);
  });

  it("leaves a long session's history shared: it changes the instruction, never the contents", async () => {
    const model = new ContentsProbeModel();
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "talker", model }),
      appName: "plugins_test",
      plugins: [new GlobalInstructionPlugin({ instruction: "Be kind." })],
    });
    const session = await runner.sessionService.createSession({ appName: "plugins_test", userId: "u" });
    for (let turn = 1; turn <= 12; turn++) await runOnce(runner.agent, [], `question ${turn}`, runner, session.id);
    // Past the 16 events from which the runner shares a session's history, no call copied it.
    expect(new Set(model.requests.slice(9).map((r) => r.contents)).size).toBe(1);
    for (const request of model.requests)
      expect(getSystemInstructionText({ ...request, toolsDict: {} }).startsWith("Be kind.")).toBe(true);
    await runner.close();
  });
});
