import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  BasePlugin,
  FunctionNode,
  FunctionTool,
  JoinNode,
  LlmAgent,
  Workflow,
  node,
  type BaseNode,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { outputs, runOnce, textOf } from "./helpers.js";

describe("Workflow: node kinds", () => {
  it("runs an LLM agent as a node: the input becomes its user turn, its answer the output", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("A haiku about cats")] });
    const topic = new FunctionNode("topic", () => "cats");
    const poet = new LlmAgent({ name: "poet", model, instruction: "Write a haiku." });
    const shout = new FunctionNode("shout", (_c, poem: string) => poem.toUpperCase());
    const { events } = await runOnce(new Workflow({ name: "w", edges: [["START", topic, poet, shout]] }));
    expect(textOf(model.requests[0]!.contents.at(-1)!)).toBe("cats");
    expect(outputs(events)).toEqual([
      ["topic", "cats"],
      ["poet", "A haiku about cats"],
      ["shout", "A HAIKU ABOUT CATS"],
    ]);
  });

  it("runs a tool as a node through the tool-call path (plugin tool callbacks included)", async () => {
    const seen: string[] = [];
    class ToolSpy extends BasePlugin {
      constructor() {
        super("spy");
      }
      override beforeToolCallback({ tool }: { tool: { name: string } }) {
        seen.push(`before:${tool.name}`);
        return undefined;
      }
    }
    const add = new FunctionTool({
      name: "add",
      description: "adds",
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    });
    const args = new FunctionNode("args", () => ({ a: 2, b: 3 }));
    const { events } = await runOnce(new Workflow({ name: "w", edges: [["START", args, add]] }), "go", {
      plugins: [new ToolSpy()],
    });
    expect(seen).toEqual(["before:add"]);
    expect(outputs(events).at(-1)).toEqual(["add", 5]);
    const call = events.find((e) => e.content?.parts?.[0]?.functionCall)!;
    expect(call.content!.parts![0]!.functionCall).toMatchObject({ name: "add", args: { a: 2, b: 3 } });
  });

  it("nests a workflow as a node: the inner output flows on", async () => {
    const double = new FunctionNode("double", (_c, n: number) => n * 2);
    const inner = new Workflow({ name: "inner", edges: [["START", double]] });
    const start = new FunctionNode("start", () => 21);
    const report = new FunctionNode("report", (_c, n: number) => `answer ${n}`);
    const { events } = await runOnce(new Workflow({ name: "outer", edges: [["START", start, inner, report]] }));
    expect(outputs(events)).toEqual([
      ["start", 21],
      ["double", 42],
      ["inner", 42],
      ["report", "answer 42"],
    ]);
    expect(events.find((e) => e.author === "double")!.nodeInfo!.path).toBe("outer/inner@1/double@1");
  });

  it("runs nodes from code with a dynamic entry (ctx.runNode)", async () => {
    const square = new FunctionNode("square", (_c, n: number) => n * n);
    const wf = new Workflow({
      name: "dyn",
      dynamicEntry: async (ctx) => {
        const results = await Promise.all([1, 2, 3].map((n) => ctx.runNode(square, n)));
        return (results as number[]).reduce((a, b) => a + b, 0);
      },
    });
    const { events } = await runOnce(wf);
    expect(
      outputs(events)
        .filter(([a]) => a === "square")
        .map(([, o]) => o)
        .sort(),
    ).toEqual([1, 4, 9]);
    expect(
      events
        .filter((e) => e.author === "square")
        .map((e) => e.nodeInfo!.path)
        .sort(),
    ).toEqual(["dyn/square@1", "dyn/square@2", "dyn/square@3"]);
  });

  it("streams events a node emits and stores its state changes with them", async () => {
    const worker = new FunctionNode("worker", async function* (ctx) {
      ctx.state.set("progress", 50);
      yield "half way";
      ctx.state.set("progress", 100);
      ctx.emit({ content: { role: "model", parts: [{ text: "done" }] } });
      return "result";
    });
    const { events, session } = await runOnce(new Workflow({ name: "w", edges: [["START", worker]] }));
    expect(events.map((e) => [textOf(e.content ?? ""), e.actions.stateDelta])).toEqual([
      ["half way", { progress: 50 }],
      ["done", { progress: 100 }],
      ["", {}],
    ]);
    expect(session.state.progress).toBe(100);
  });

  it("wraps node-likes with options through node()", async () => {
    let attempts = 0;
    const n = node(
      function flaky() {
        if (++attempts < 2) throw new Error("once");
        return "ok";
      },
      { retryConfig: { maxAttempts: 2, initialDelayMs: 1 } },
    );
    expect(n.name).toBe("flaky");
    const { events } = await runOnce(new Workflow({ name: "w", edges: [["START", n]] }));
    expect(outputs(events)).toEqual([["flaky", "ok"]]);
  });
});

describe("Workflow: plugins", () => {
  it("calls before/after node callbacks, which may skip a node or replace its output", async () => {
    const calls: string[] = [];
    class NodePlugin extends BasePlugin {
      constructor() {
        super("nodes");
      }
      override beforeNodeCallback({ node }: { node: BaseNode }) {
        calls.push(`before:${node.name}`);
        return node.name === "skipped" ? "from plugin" : undefined;
      }
      override afterNodeCallback({ node, output }: { node: BaseNode; output: unknown }) {
        calls.push(`after:${node.name}`);
        return node.name === "last" ? `${String(output)} (edited)` : undefined;
      }
    }
    const skipped = new FunctionNode("skipped", () => "never");
    const last = new FunctionNode("last", (_c, input: string) => `got ${input}`);
    const { events } = await runOnce(new Workflow({ name: "w", edges: [["START", skipped, last]] }), "x", {
      plugins: [new NodePlugin()],
    });
    expect(calls).toEqual(["before:skipped", "after:skipped", "before:last", "after:last"]);
    expect(outputs(events)).toEqual([
      ["skipped", "from plugin"],
      ["last", "got from plugin (edited)"],
    ]);
  });
});

describe("Workflow: validation", () => {
  const a = () => new FunctionNode("a", () => 1);
  it("names the problem in the graph", () => {
    expect(() => new Workflow({ name: "w", edges: [] })).toThrow(/non-empty list/);
    expect(() => new Workflow({ name: "w", edges: [[a(), a()]] })).toThrow(/two different nodes are named "a"/);
    const lone = new FunctionNode("lone", () => 1);
    const x = a();
    expect(
      () =>
        new Workflow({
          name: "w",
          edges: [
            ["START", x],
            [lone, x],
          ],
        }),
    ).toThrow(/"lone" cannot be reached/);
    expect(() => new Workflow({ name: "w", edges: [["START", () => 1]] })).toThrow(/must have a name/);
    expect(() => new Workflow({ name: "w", edges: [["START", { x: a() }]] })).toThrow(/cannot have a route/);
    expect(() => new Workflow({ name: "w", edges: [["START", 42 as never]] })).toThrow(/not a node/);
    expect(() => new JoinNode({ name: "j", waitFor: 0 })).toThrow(/waitFor/);
    expect(() => new FunctionNode("bad name", () => 1)).toThrow(/Invalid node name/);
  });
});
