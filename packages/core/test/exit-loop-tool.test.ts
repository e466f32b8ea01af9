import { describe, expect, it } from "@jest/globals";
import {
  BaseAgent,
  exitLoopTool,
  FunctionTool,
  InMemorySessionService,
  InvocationContext,
  PluginManager,
  ToolContext,
  type Event,
} from "../src/index.js";

class StubAgent extends BaseAgent {
  protected override async *runAsyncImpl(): AsyncGenerator<Event, void, void> {}
}

describe("exitLoopTool", () => {
  it("is a function tool named exit_loop without parameters", () => {
    expect(exitLoopTool).toBeInstanceOf(FunctionTool);
    expect(exitLoopTool.isLongRunning).toBe(false);
    expect(exitLoopTool.getDeclaration()).toEqual({
      name: "exit_loop",
      description: "Exits the loop. Call this function only when you are instructed to do so.",
      parametersJsonSchema: { type: "object", properties: {} },
    });
  });

  it("escalates and skips summarization, returning an empty object", async () => {
    const sessionService = new InMemorySessionService();
    const session = await sessionService.createSession({ appName: "app", userId: "u" });
    const invocation = new InvocationContext({
      invocationId: "e-1",
      agent: new StubAgent({ name: "a" }),
      session,
      sessionService,
      pluginManager: new PluginManager(),
    });
    const context = new ToolContext(invocation, { functionCallId: "c1" });
    expect(context.actions.escalate).toBeUndefined();
    expect(await exitLoopTool.runAsync({ args: {}, toolContext: context })).toEqual({});
    expect(context.actions.escalate).toBe(true);
    expect(context.actions.skipSummarization).toBe(true);
    expect(context.actions.stateDelta).toEqual({});
  });
});
