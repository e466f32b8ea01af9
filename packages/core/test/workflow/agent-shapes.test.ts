import { describe, expect, it } from "@jest/globals";
import {
  FunctionNode,
  LlmAgent,
  LongRunningFunctionTool,
  LoopAgent,
  ParallelAgent,
  SequentialAgent,
  Workflow,
  isWorkflow,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ScriptAgent, say } from "../runner-fixtures/test-agents.js";
import { outputs, runOnce } from "./helpers.js";

const edgesOf = (wf: Workflow) =>
  wf.graph.edges.map((e) => `${e.from}->${e.to}${e.maxTraversals ? ` (max ${e.maxTraversals})` : ""}`);

describe("workflow agents are shapes over the workflow engine", () => {
  it("builds a chain, a fan-out and a bounded cycle", () => {
    const agents = () => [new ScriptAgent({ name: "a" }), new ScriptAgent({ name: "b" })];
    const seq = new SequentialAgent({ name: "seq", subAgents: agents() });
    const par = new ParallelAgent({ name: "par", subAgents: agents() });
    const loop = new LoopAgent({ name: "loop", subAgents: agents(), maxIterations: 3 });
    expect([seq, par, loop].every(isWorkflow)).toBe(true);
    expect(edgesOf(seq)).toEqual(["START->a", "a->b"]);
    expect(edgesOf(par)).toEqual(["START->a", "START->b"]);
    expect(edgesOf(loop)).toEqual(["START->a", "a->b", "b->a (max 2)"]);
    expect(edgesOf(new LoopAgent({ name: "forever", subAgents: [new ScriptAgent({ name: "x" })] }))).toEqual([
      "START->x",
      "x->x",
    ]);
    expect(seq.subAgents.map((s) => s.name)).toEqual(["a", "b"]);
  });

  it("adds no events of its own outside resumable apps", async () => {
    const seq = new SequentialAgent({
      name: "seq",
      subAgents: [new ScriptAgent({ name: "a", steps: [say("1")] }), new ScriptAgent({ name: "b", steps: [say("2")] })],
    });
    const { session } = await runOnce(seq);
    expect(session.events.map((e) => [e.author, e.nodeInfo, e.output])).toEqual([
      ["user", undefined, undefined],
      ["a", undefined, undefined],
      ["b", undefined, undefined],
    ]);
  });

  it("keeps its old pause behaviour outside resumable apps: the next sub-agent runs", async () => {
    const ask = new LongRunningFunctionTool({ name: "ask_human", description: "asks", execute: () => undefined });
    const model = new ScriptedModel({ steps: [ScriptedModel.functionCall("ask_human", {}, "c1")] });
    const after = new ScriptAgent({ name: "after", steps: [say("next")] });
    await runOnce(
      new SequentialAgent({ name: "seq", subAgents: [new LlmAgent({ name: "asker", model, tools: [ask] }), after] }),
    );
    expect(after.seen).toHaveLength(1);
  });

  it("runs as a node of a workflow, its last answer the node's output", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("drafted"), ScriptedModel.text("polished")] });
    const pipeline = new SequentialAgent({
      name: "pipeline",
      subAgents: [new LlmAgent({ name: "draft", model }), new LlmAgent({ name: "polish", model })],
    });
    const publish = new FunctionNode("publish", (_c, text: string) => `published: ${text}`);
    const { events } = await runOnce(new Workflow({ name: "w", edges: [["START", pipeline, publish]] }));
    expect(outputs(events)).toEqual([
      ["pipeline", "polished"],
      ["publish", "published: polished"],
    ]);
  });
});
