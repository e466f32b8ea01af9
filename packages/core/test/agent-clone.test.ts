import { describe, expect, it } from "@jest/globals";
import { ConfigurationError, FunctionNode, LlmAgent, LoopAgent, SequentialAgent, Workflow } from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";

describe("BaseAgent.clone", () => {
  it("makes an agent of the same class with the updates, sharing model and tools", () => {
    const model = new ScriptedModel({ steps: [] });
    const writer = new LlmAgent({ name: "writer", model, instruction: "Write.", outputKey: "draft" });
    const reviewer = writer.clone({ name: "reviewer", instruction: "Review." });
    expect(reviewer).toBeInstanceOf(LlmAgent);
    expect(reviewer.name).toBe("reviewer");
    expect(reviewer.instruction).toBe("Review.");
    expect(reviewer.outputKey).toBe("draft");
    expect(reviewer.model).toBe(model);
    expect(writer.name).toBe("writer");
  });

  it("clones sub-agents too, so the clone and the original each have their own tree", () => {
    const model = new ScriptedModel({ steps: [] });
    const loop = new LoopAgent({
      name: "loop",
      maxIterations: 3,
      subAgents: [new LlmAgent({ name: "a", model }), new LlmAgent({ name: "b", model })],
    });
    const copy = loop.clone({ name: "loop2" });
    expect(copy).toBeInstanceOf(LoopAgent);
    expect(copy.maxIterations).toBe(3);
    expect(copy.subAgents.map((s) => s.name)).toEqual(["a", "b"]);
    expect(copy.subAgents[0]).not.toBe(loop.subAgents[0]);
    expect(copy.subAgents[0]!.parentAgent).toBe(copy);
    expect(loop.subAgents[0]!.parentAgent).toBe(loop);
    const seq = new SequentialAgent({ name: "seq", subAgents: [new LlmAgent({ name: "c", model })] });
    const fresh = new LlmAgent({ name: "d", model });
    expect(seq.clone({ subAgents: [fresh] }).subAgents).toEqual([fresh]);
  });

  it("refuses a Workflow built from edges (its nodes already belong to it) with a ConfigurationError", () => {
    const model = new ScriptedModel({ steps: [] });
    const wf = new Workflow({
      name: "wf",
      edges: [["START", new LlmAgent({ name: "n1", model }), new FunctionNode("n2", () => "x")]],
    });
    expect(() => wf.clone({ name: "wf2" })).toThrow(ConfigurationError);
  });
});
