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

describe("afterRunCallback ends the run for every plugin", () => {
  /** A promise and its resolver, settled by the test. */
  function deferred<T = void>() {
    let resolve!: (value: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    return { promise, resolve };
  }

  class LoggingPlugin extends BasePlugin {
    constructor(
      name: string,
      private readonly log: string[],
      private readonly hooks: { before?: () => Promise<void>; after?: () => void } = {},
    ) {
      super(name);
    }
    override async beforeRunCallback(): Promise<undefined> {
      this.log.push(`${this.name}:before`);
      await this.hooks.before?.();
      this.log.push(`${this.name}:before-done`);
      return undefined;
    }
    override afterRunCallback(): undefined {
      this.log.push(`${this.name}:after`);
      this.hooks.after?.();
      return undefined;
    }
  }

  const textRunner = (plugins: BasePlugin[]) =>
    new InMemoryRunner({
      agent: new LlmAgent({ name: "root", model: new ScriptedModel({ steps: [ScriptedModel.text("hi")] }) }),
      plugins,
    });

  it("runs every plugin's afterRun when an earlier one throws, then reports the failure", async () => {
    const log: string[] = [];
    class Failing extends LoggingPlugin {
      override afterRunCallback(): undefined {
        super.afterRunCallback();
        throw new Error("cleanup broke");
      }
    }
    const runner = textRunner([new Failing("first", log), new LoggingPlugin("second", log)]);
    await runner.sessionService.createSession({ appName: "InMemoryRunner", userId: "u", sessionId: "s" });
    await expect(collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hello" }))).rejects.toMatchObject({
      code: "PLUGIN_ERROR",
      pluginName: "first",
      hook: "afterRunCallback",
    });
    expect(log.filter((l) => l.endsWith(":after"))).toEqual(["first:after", "second:after"]);
  });

  it("after an abort while beforeRun still runs, runs afterRun once beforeRun is done, without holding the run's end", async () => {
    const log: string[] = [];
    const gate = deferred();
    const entered = deferred();
    const afterRan = deferred();
    const before = () => {
      entered.resolve();
      return gate.promise;
    };
    const runner = textRunner([new LoggingPlugin("slow", log, { before, after: afterRan.resolve })]);
    await runner.sessionService.createSession({ appName: "InMemoryRunner", userId: "u", sessionId: "s" });
    const controller = new AbortController();
    const run = collect(
      runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hello", signal: controller.signal }),
    );
    await entered.promise;
    controller.abort(new Error("client left"));
    await expect(run).rejects.toMatchObject({ code: "RUN_ABORTED" });
    expect(log).toEqual(["slow:before"]);
    gate.resolve();
    await afterRan.promise;
    expect(log).toEqual(["slow:before", "slow:before-done", "slow:after"]);
  });
});
