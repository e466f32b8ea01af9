import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  FunctionTool,
  getFunctionResponses,
  getSystemInstructionText,
  LlmAgent,
  type LlmRequest,
} from "../../src/index.js";
import { isTransferableAcrossAgentTree } from "../../src/internal.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { Harness, texts } from "./helpers.js";

const transferCall = (name: string) =>
  ScriptedModel.functionCall("transfer_to_agent", { agent_name: name }, `t-${name}`);
const si = (req: unknown) => getSystemInstructionText(req as LlmRequest);

describe("agent transfer", () => {
  it("transfers to a sub-agent, which answers in the same invocation", async () => {
    const parentModel = new ScriptedModel({ steps: [transferCall("billing")] });
    const billingModel = new ScriptedModel({ steps: [ScriptedModel.text("Your bill is 5.")] });
    const billing = new LlmAgent({ name: "billing", description: "Handles bills.", model: billingModel });
    const root = new LlmAgent({ name: "root", model: parentModel, subAgents: [billing] });
    const h = await Harness.create();
    const events = await h.run(root, "my bill?");
    expect(events.map((e) => e.author)).toEqual(["root", "root", "billing"]);
    expect(events[1]!.actions.transferToAgent).toBe("billing");
    expect(texts(events)).toEqual(["Your bill is 5."]);
    const req = parentModel.requests[0]!;
    expect(req.toolNames).toEqual(["transfer_to_agent"]);
    const decl = req.config.tools![0]!.functionDeclarations![0]!;
    expect(decl.parametersJsonSchema).toMatchObject({ properties: { agent_name: { enum: ["billing"] } } });
    expect(si(req)).toContain("Agent name: billing\nAgent description: Handles bills.");
    expect(si(req)).toContain("the only available agents for `transfer_to_agent` function are `billing`");
    // The sub-agent sees the parent's turn as context.
    const sub = billingModel.requests[0]!;
    expect(sub.contents[0]).toEqual({ role: "user", parts: [{ text: "my bill?" }] });
    expect(sub.contents[1]!.parts![0]).toEqual({ text: "For context:" });
    expect(sub.contents[1]!.parts![1]!.text).toBe(
      '[root] called tool `transfer_to_agent` with parameters: {"agent_name":"billing"}',
    );
  });

  it("lets a sub-agent transfer to its parent and peers unless disallowed", async () => {
    const childModel = new ScriptedModel({
      steps: [ScriptedModel.text("a"), ScriptedModel.text("b"), ScriptedModel.text("c")],
    });
    const peer = new LlmAgent({ name: "peer", description: "peer" });
    const open = new LlmAgent({ name: "open", model: childModel });
    const noParent = new LlmAgent({ name: "no_parent", model: childModel, disallowTransferToParent: true });
    const noPeers = new LlmAgent({ name: "no_peers", model: childModel, disallowTransferToPeers: true });
    new LlmAgent({ name: "root", model: new ScriptedModel(), subAgents: [open, noParent, noPeers, peer] });
    const h = await Harness.create();
    await h.run(open, "1");
    await h.run(noParent, "2");
    await h.run(noPeers, "3");
    const enumOf = (i: number) =>
      (
        childModel.requests[i]!.config.tools![0]!.functionDeclarations![0]!.parametersJsonSchema as {
          properties: { agent_name: { enum: string[] } };
        }
      ).properties.agent_name.enum;
    expect(enumOf(0)).toEqual(["root", "no_parent", "no_peers", "peer"]);
    expect(si(childModel.requests[0])).toContain("transfer to your parent agent root");
    expect(enumOf(1)).toEqual(["open", "no_peers", "peer"]);
    expect(si(childModel.requests[1])).not.toContain("parent agent");
    expect(enumOf(2)).toEqual(["root"]);
  });

  it("offers no transfer tool when there is no target", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("x")] });
    const leaf = new LlmAgent({ name: "leaf", model, disallowTransferToParent: true, disallowTransferToPeers: true });
    new LlmAgent({ name: "root", model, subAgents: [leaf] });
    const h = await Harness.create();
    await h.run(leaf, "hi");
    expect(model.requests[0]!.toolNames).toEqual([]);
    expect(si(model.requests[0])).not.toContain("transfer");
  });

  it("transfers back to the parent", async () => {
    const rootModel = new ScriptedModel({ steps: [ScriptedModel.text("root here")] });
    const child = new LlmAgent({ name: "child", model: new ScriptedModel({ steps: [transferCall("root")] }) });
    new LlmAgent({ name: "root", model: rootModel, subAgents: [child] });
    const h = await Harness.create();
    const events = await h.run(child, "hi");
    expect(events.map((e) => e.author)).toEqual(["child", "child", "root"]);
    expect(texts(events)).toEqual(["root here"]);
  });

  it("transfers to a peer", async () => {
    const left = new LlmAgent({ name: "left", model: new ScriptedModel({ steps: [transferCall("right")] }) });
    const right = new LlmAgent({
      name: "right",
      model: new ScriptedModel({ steps: [ScriptedModel.text("right here")] }),
    });
    new LlmAgent({ name: "root", model: new ScriptedModel(), subAgents: [left, right] });
    const h = await Harness.create();
    const events = await h.run(left, "hi");
    expect(events.map((e) => e.author)).toEqual(["left", "left", "right"]);
    expect(texts(events)).toEqual(["right here"]);
  });

  it("answers an unknown agent name with an error response instead of crashing", async () => {
    const model = new ScriptedModel({ steps: [transferCall("ghost"), ScriptedModel.text("staying")] });
    const root = new LlmAgent({ name: "root", model, subAgents: [new LlmAgent({ name: "real" })] });
    const h = await Harness.create();
    const events = await h.run(root, "hi");
    const response = getFunctionResponses(events[1]!)[0]!.response as { error: string };
    expect(response.error).toMatch(/"ghost" cannot be transferred to. Available agents: real/);
    expect(events[1]!.actions.transferToAgent).toBeUndefined();
    expect(texts(events)).toEqual(["staying"]);
  });

  it("isTransferableAcrossAgentTree follows ADK's rule", () => {
    const deep = new LlmAgent({ name: "deep" });
    const locked = new LlmAgent({ name: "locked", disallowTransferToParent: true });
    const mid = new LlmAgent({ name: "mid", subAgents: [deep] });
    new LlmAgent({ name: "root", subAgents: [mid, locked] });
    expect(isTransferableAcrossAgentTree(deep)).toBe(true);
    expect(isTransferableAcrossAgentTree(locked)).toBe(false);
  });
});

describe("outputSchema with tools (set_model_response)", () => {
  it("offers set_model_response and turns its arguments into the final JSON answer", async () => {
    const schema = z.object({ answer: z.string(), score: z.number() });
    const lookup = new FunctionTool({ name: "lookup", description: "looks up", execute: () => ({ found: "x" }) });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("lookup", {}, "l1"),
        ScriptedModel.functionCall("set_model_response", { answer: "x", score: "high" }, "s1"),
        ScriptedModel.functionCall("set_model_response", { answer: "x", score: 3 }, "s2"),
      ],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [lookup], outputSchema: schema, outputKey: "result" });
    const h = await Harness.create();
    const events = await h.run(agent, "q");
    const req = model.requests[0]!;
    expect(req.toolNames).toEqual(["lookup", "set_model_response"]);
    expect(req.config.responseJsonSchema).toBeUndefined();
    expect(si(req)).toContain("you MUST call `set_model_response`");
    const smr = req.config.tools![0]!.functionDeclarations!.find((d) => d.name === "set_model_response")!;
    expect(smr.parametersJsonSchema).toMatchObject({ type: "object", required: ["answer", "score"] });
    // The invalid call is answered with an error and the model retries.
    const invalid = getFunctionResponses(events[3]!)[0]!.response as { error: string };
    expect(invalid.error).toMatch(/score/);
    const final = events[events.length - 1]!;
    expect(final.content).toEqual({ role: "model", parts: [{ text: '{"answer":"x","score":3}' }] });
    expect(h.session.state.result).toEqual({ answer: "x", score: 3 });
    model.assertConsumed();
  });
});
