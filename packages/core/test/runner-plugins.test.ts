import { describe, expect, it } from "@jest/globals";
import { FunctionTool, InMemoryRunner, LlmAgent } from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";
import { RecordingPlugin, collect } from "./runner-fixtures/test-agents.js";

describe("Runner plugin hooks", () => {
  it("fire in ADK's order over a run with one tool call", async () => {
    const recorder = new RecordingPlugin();
    const tool = new FunctionTool({ name: "lookup", description: "Looks up", execute: () => ({ value: 42 }) });
    const model = new ScriptedModel({ steps: [ScriptedModel.functionCall("lookup", {}, "c1"), ScriptedModel.text("it is 42")] });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "root", model, tools: [tool] }), plugins: [recorder] });
    await runner.sessionService.createSession({ appName: "InMemoryRunner", userId: "u", sessionId: "s" });
    const events = await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "what is it?" }));
    expect(events).toHaveLength(3);
    expect(recorder.calls).toEqual([
      "onUserMessage",
      "beforeRun",
      "beforeAgent",
      "beforeModel",
      "afterModel",
      "onEvent",
      "beforeTool",
      "afterTool",
      "onEvent",
      "beforeModel",
      "afterModel",
      "onEvent",
      "afterAgent",
      "afterRun",
    ]);
  });
});
