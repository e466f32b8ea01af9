import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  BasePlugin,
  BaseTool,
  FunctionTool,
  getFunctionCalls,
  getFunctionResponses,
  LlmAgent,
  ToolExecutionMode,
  type BaseToolset,
  type ReadonlyContext,
  type ToolContext,
  type ToolRunRequest,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { deferred, Harness, texts } from "./helpers.js";

const echo = (name: string, log?: string[]) =>
  new FunctionTool({
    name,
    description: `${name} tool`,
    parameters: z.object({ x: z.number() }),
    execute: ({ x }) => {
      log?.push(`${name}:${x}`);
      return { [name]: x * 2 };
    },
  });

describe("function calling", () => {
  it("runs a call, answers it in one user-role event and lets the model continue", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("double", { x: 2 }, "c1"), ScriptedModel.text("4")],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [echo("double")] });
    const h = await Harness.create();
    const events = await h.run(agent, "double 2");
    expect(events).toHaveLength(3);
    expect(events[1]).toMatchObject({
      author: "a",
      content: { role: "user", parts: [{ functionResponse: { id: "c1", name: "double", response: { double: 4 } } }] },
    });
    expect(texts(events)).toEqual(["4"]);
    const second = model.requests[1]!;
    expect(second.contents.slice(1)).toEqual([
      { role: "model", parts: [{ functionCall: { id: "c1", name: "double", args: { x: 2 } } }] },
      { role: "user", parts: [{ functionResponse: { id: "c1", name: "double", response: { double: 4 } } }] },
    ]);
    expect(model.requests[0]!.toolNames).toEqual(["double"]);
    expect(model.requests[0]!.config.tools?.[0]?.functionDeclarations?.[0]?.name).toBe("double");
  });

  it("gives calls without ids an adk- id, the same in the call event and the response", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCalls([
          { name: "double", args: { x: 1 } },
          { name: "double", args: { x: 2 } },
        ]),
        ScriptedModel.text("ok"),
      ],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [echo("double")] });
    const h = await Harness.create();
    const events = await h.run(agent, "go");
    const ids = getFunctionCalls(events[0]!).map((c) => c.id);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^adk-[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(2);
    expect(getFunctionResponses(events[1]!).map((r) => r.id)).toEqual(ids);
    expect(getFunctionCalls(h.session.events[1]!).map((c) => c.id)).toEqual(ids);
  });

  it("runs the calls of one turn concurrently, answering in call order", async () => {
    const latch = deferred();
    let started = 0;
    const waiter = (name: string, delayMs: number) =>
      new FunctionTool({
        name,
        description: name,
        execute: async () => {
          started += 1;
          if (started === 2) latch.resolve();
          await latch.promise; // both must be running for either to finish
          await new Promise((r) => setTimeout(r, delayMs));
          return { name };
        },
      });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCalls([
          { name: "slow", id: "1" },
          { name: "fast", id: "2" },
        ]),
        ScriptedModel.text("done"),
      ],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [waiter("slow", 30), waiter("fast", 0)] });
    const h = await Harness.create();
    const events = await h.run(agent, "go");
    expect(getFunctionResponses(events[1]!).map((r) => [r.id, r.name])).toEqual([
      ["1", "slow"],
      ["2", "fast"],
    ]);
    expect(events.filter((e) => getFunctionResponses(e).length > 0)).toHaveLength(1);
  });

  it("runs calls one after another in sequential mode", async () => {
    const order: string[] = [];
    const tool = (name: string, delayMs: number) =>
      new FunctionTool({
        name,
        description: name,
        execute: async () => {
          order.push(`start ${name}`);
          await new Promise((r) => setTimeout(r, delayMs));
          order.push(`end ${name}`);
          return {};
        },
      });
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCalls([{ name: "one" }, { name: "two" }]), ScriptedModel.text("ok")],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [tool("one", 20), tool("two", 0)] });
    const h = await Harness.create();
    await h.run(agent, "go", { runConfig: { toolExecutionMode: ToolExecutionMode.SEQUENTIAL } });
    expect(order).toEqual(["start one", "end one", "start two", "end two"]);
  });

  it("answers an unknown tool with an error the model can read, then continues", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("nope", {}, "c1"), ScriptedModel.text("sorry")],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [echo("double"), echo("triple")] });
    const h = await Harness.create();
    const events = await h.run(agent, "go");
    expect(getFunctionResponses(events[1]!)[0]).toEqual({
      id: "c1",
      name: "nope",
      response: { error: "Tool 'nope' not found. Available tools: double, triple." },
    });
    expect(texts(events)).toEqual(["sorry"]);
  });

  it("answers invalid arguments with an error response (FunctionTool validation)", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("double", { x: "two" }, "c1"), ScriptedModel.text("retry")],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [echo("double")] });
    const h = await Harness.create();
    const events = await h.run(agent, "go");
    const response = getFunctionResponses(events[1]!)[0]!.response as { error: string };
    expect(response.error).toMatch(/Invalid arguments for tool double: x:/);
  });

  it("reports a thrown tool error as { error } and through onToolErrorCallback (plugin first)", async () => {
    const failing = new FunctionTool({
      name: "fail",
      description: "fails",
      execute: () => {
        throw new Error("disk full");
      },
    });
    const h = await Harness.create();
    const plain = new LlmAgent({
      name: "a",
      model: new ScriptedModel({ steps: [ScriptedModel.functionCall("fail", {}, "c1"), ScriptedModel.text("ok")] }),
      tools: [failing],
    });
    expect(getFunctionResponses((await h.run(plain, "go"))[1]!)[0]!.response).toEqual({ error: "disk full" });

    const seen: string[] = [];
    const handled = new LlmAgent({
      name: "b",
      model: new ScriptedModel({
        steps: [
          ScriptedModel.functionCall("fail", {}, "c2"),
          ScriptedModel.text("ok"),
          ScriptedModel.functionCall("fail", {}, "c3"),
          ScriptedModel.text("ok"),
        ],
      }),
      tools: [failing],
      onToolErrorCallback: ({ tool, error }) => {
        seen.push(`${tool.name}: ${(error as Error).message}`);
        return { recovered: true };
      },
    });
    expect(getFunctionResponses((await h.run(handled, "go"))[1]!)[0]!.response).toEqual({ recovered: true });
    expect(seen).toEqual(["fail: disk full"]);
    class P extends BasePlugin {
      override onToolErrorCallback(): Record<string, unknown> {
        return { fromPlugin: true };
      }
    }
    expect(getFunctionResponses((await h.run(handled, "go", { plugins: [new P("p")] }))[1]!)[0]!.response).toEqual({
      fromPlugin: true,
    });
    expect(seen).toHaveLength(1);
  });

  it("a before-tool callback's object skips the tool (plugin first); an after-tool callback replaces the result", async () => {
    const log: string[] = [];
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("double", { x: 1 }, "c1"),
        ScriptedModel.text("1"),
        ScriptedModel.functionCall("double", { x: 2 }, "c2"),
        ScriptedModel.text("2"),
        ScriptedModel.functionCall("double", { x: 3 }, "c3"),
        ScriptedModel.text("3"),
      ],
    });
    const agent = new LlmAgent({
      name: "a",
      model,
      tools: [echo("double", log)],
      beforeToolCallback: ({ args }) => (args.x === 1 ? { skipped: "by agent" } : undefined),
      afterToolCallback: ({ response, context }) => {
        context.state.set("after", true);
        return { ...response, checked: true };
      },
    });
    class P extends BasePlugin {
      override beforeToolCallback({ args }: { args: Record<string, unknown> }): Record<string, unknown> | undefined {
        return args.x === 2 ? { skipped: "by plugin" } : undefined;
      }
    }
    const h = await Harness.create();
    const plugins = [new P("p")];
    const r1 = getFunctionResponses((await h.run(agent, "1", { plugins }))[1]!)[0]!.response;
    const r2 = getFunctionResponses((await h.run(agent, "2", { plugins }))[1]!)[0]!.response;
    const run3 = await h.run(agent, "3", { plugins });
    const r3 = getFunctionResponses(run3[1]!)[0]!.response;
    expect(r1).toEqual({ skipped: "by agent", checked: true });
    expect(r2).toEqual({ skipped: "by plugin", checked: true });
    expect(r3).toEqual({ double: 6, checked: true });
    expect(log).toEqual(["double:3"]);
    expect(run3[1]!.actions.stateDelta).toEqual({ after: true });
    expect(h.session.state.after).toBe(true);
  });

  it("a plugin's after-tool result wins over the agent's", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("double", { x: 1 }, "c1"), ScriptedModel.text("ok")],
    });
    const agent = new LlmAgent({
      name: "a",
      model,
      tools: [echo("double")],
      afterToolCallback: () => ({ by: "agent" }),
    });
    class P extends BasePlugin {
      override afterToolCallback(): Record<string, unknown> {
        return { by: "plugin" };
      }
    }
    const h = await Harness.create();
    expect(getFunctionResponses((await h.run(agent, "go", { plugins: [new P("p")] }))[1]!)[0]!.response).toEqual({
      by: "plugin",
    });
  });

  it("wraps non-object results as { result } and merges actions of parallel calls", async () => {
    class Plain extends BaseTool {
      constructor(
        name: string,
        private readonly value: unknown,
      ) {
        super({ name, description: name });
      }
      override getDeclaration() {
        return { name: this.name, description: this.description };
      }
      override async runAsync({ toolContext }: ToolRunRequest): Promise<unknown> {
        toolContext.state.set(this.name, true);
        return this.value;
      }
    }
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCalls([
          { name: "num", id: "1" },
          { name: "none", id: "2" },
          { name: "arr", id: "3" },
        ]),
        ScriptedModel.text("ok"),
      ],
    });
    const agent = new LlmAgent({
      name: "a",
      model,
      tools: [new Plain("num", 7), new Plain("none", undefined), new Plain("arr", [1])],
    });
    const h = await Harness.create();
    const events = await h.run(agent, "go");
    expect(getFunctionResponses(events[1]!).map((r) => r.response)).toEqual([{ result: 7 }, {}, { result: [1] }]);
    expect(events[1]!.actions.stateDelta).toEqual({ num: true, none: true, arr: true });
  });

  it("ends the turn without a model summary when a tool sets skipSummarization", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.functionCall("stop", {}, "c1")] });
    const stop = new FunctionTool({
      name: "stop",
      description: "stop",
      execute: (_a, ctx: ToolContext) => {
        ctx.actions.skipSummarization = true;
        return { stopped: true };
      },
    });
    const h = await Harness.create();
    const events = await h.run(new LlmAgent({ name: "a", model, tools: [stop] }), "go");
    expect(events).toHaveLength(2);
    expect(events[1]!.actions.skipSummarization).toBe(true);
    model.assertConsumed();
  });

  it("stops after the function response when a tool ends the invocation", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("end_now", {}, "c1"), ScriptedModel.text("never")],
    });
    const endNow = new FunctionTool({
      name: "end_now",
      description: "ends",
      execute: (_a, ctx: ToolContext) => {
        ctx.invocation.end();
        return { ended: true };
      },
    });
    const h = await Harness.create();
    const events = await h.run(new LlmAgent({ name: "a", model, tools: [endNow] }), "go");
    expect(events).toHaveLength(2);
    expect(model.remaining).toBe(1);
  });

  it("expands toolsets per call and closes them with the agent", async () => {
    let closed = 0;
    const contexts: (ReadonlyContext | undefined)[] = [];
    const toolset: BaseToolset = {
      toolFilter: undefined,
      toolNamePrefix: undefined,
      getTools: async (ctx?: ReadonlyContext) => {
        contexts.push(ctx);
        return [echo("from_set")];
      },
      close: async () => {
        closed += 1;
      },
      processLlmRequest: async () => {},
    } as unknown as BaseToolset;
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("from_set", { x: 5 }, "c1"), ScriptedModel.text("ok")],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [toolset] });
    const h = await Harness.create();
    const events = await h.run(agent, "go");
    expect(getFunctionResponses(events[1]!)[0]!.response).toEqual({ from_set: 10 });
    expect(contexts.length).toBeGreaterThanOrEqual(2);
    expect(contexts[0]?.agentName).toBe("a");
    expect((await agent.canonicalTools()).map((t) => t.name)).toEqual(["from_set"]);
    await agent.close();
    expect(closed).toBe(1);
  });
});
