import { describe, expect, it } from "@jest/globals";
import {
  BasePlugin,
  type CallbackContext,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  StreamingMode,
} from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";
import { RecordingPlugin, collect } from "./runner-fixtures/test-agents.js";

describe("Runner plugin hooks", () => {
  it("fire in ADK's order over a run with one tool call", async () => {
    const recorder = new RecordingPlugin();
    const tool = new FunctionTool({ name: "lookup", description: "Looks up", execute: () => ({ value: 42 }) });
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("lookup", {}, "c1"), ScriptedModel.text("it is 42")],
    });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "root", model, tools: [tool] }),
      plugins: [recorder],
    });
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

describe("CallbackContext.modelResponseEventId", () => {
  it("names, in after-model hooks, the id of the event each model response becomes (streamed chunks included)", async () => {
    const seen: string[] = [];
    class IdPlugin extends BasePlugin {
      constructor() {
        super("ids");
      }
      override afterModelCallback({ context }: { context: CallbackContext }): undefined {
        if (context.modelResponseEventId) seen.push(context.modelResponseEventId);
        return undefined;
      }
    }
    const tool = new FunctionTool({ name: "lookup", description: "Looks up", execute: () => ({ value: 42 }) });
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("lookup", {}, "c1"), { chunks: ["it is ", "42"] }],
    });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "root", model, tools: [tool] }),
      plugins: [new IdPlugin()],
    });
    await runner.sessionService.createSession({ appName: "InMemoryRunner", userId: "u", sessionId: "s" });
    const events = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: "what is it?",
        runConfig: { streamingMode: StreamingMode.SSE },
      }),
    );
    const modelEvents = events.filter((e) => e.content?.role === "model");
    // call event, two partial chunks, the final text
    expect(modelEvents).toHaveLength(4);
    expect(seen).toEqual(modelEvents.map((e) => e.id));
    expect(new Set(seen).size).toBe(4);
    await runner.close();
  });
});
