import { describe, expect, it } from "@jest/globals";
import {
  ConfigurationError,
  getSystemInstructionText,
  createLlmRequest,
  IncludeContents,
  InMemoryArtifactService,
  InvocationContext,
  LlmAgent,
  PluginManager,
  type LlmRequest,
} from "../../src/index.js";
import { applyInstructions } from "../../src/flows/instructions.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { Harness } from "./helpers.js";

const si = (req: unknown) => getSystemInstructionText(req as LlmRequest);

async function instructionFor(
  instruction: LlmAgent["instruction"],
  state: Record<string, unknown> = {},
): Promise<string> {
  const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
  const h = await Harness.create(state);
  await h.run(new LlmAgent({ name: "a", model, instruction }), "hi");
  return si(model.requests[0]).split("\n\nYou are an agent.")[0]!;
}

describe("instruction templating", () => {
  it("fills state keys, prefixed keys and optional keys; leaves other braces literal", async () => {
    const h = await Harness.create({ "user:name": "Ann", "app:tone": "kind" });
    await h.append({ author: "x", actions: { stateDelta: { "temp:mood": "calm" } } });
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const agent = new LlmAgent({
      name: "a",
      model,
      instruction:
        'Hi {user:name}, be {app:tone} and {temp:mood}. {missing?}|{ user:name }|{{user:name}}|{not valid}|{"json": ' +
        "1}|{a:b:c}|{count}",
    });
    h.session.state.count = 0;
    await h.run(agent, "hi");
    expect(si(model.requests[0])).toContain('Hi Ann, be kind and calm. |Ann|Ann|{not valid}|{"json": 1}|{a:b:c}|0');
  });

  it("renders objects as JSON and null as empty", async () => {
    expect(await instructionFor("{obj} [{nothing}]", { obj: { a: 1 }, nothing: null })).toBe('{"a":1} []');
  });

  it("throws ConfigurationError naming a missing required key", async () => {
    const h = await Harness.create();
    const agent = new LlmAgent({ name: "a", model: new ScriptedModel(), instruction: "Use {topic}." });
    const run = h.run(agent, "hi");
    await expect(run).rejects.toBeInstanceOf(ConfigurationError);
    await expect(h.run(agent, "hi")).rejects.toThrow(/"topic"/);
  });

  it("does not template function instructions", async () => {
    expect(await instructionFor((ctx) => `literal {topic} for ${ctx.agentName}`)).toBe("literal {topic} for a");
  });

  it("loads {artifact.name} through the artifact service", async () => {
    const artifacts = new InMemoryArtifactService();
    const h = await Harness.create();
    await artifacts.saveArtifact({
      appName: "app",
      userId: "u",
      sessionId: h.session.id,
      filename: "notes.txt",
      artifact: { text: "remember milk" },
    });
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok"), ScriptedModel.text("ok")] });
    const agent = new LlmAgent({
      name: "a",
      model,
      instruction: "Notes: {artifact.notes.txt} / {artifact.other.txt?}.",
    });
    await h.run(agent, "hi", { artifactService: artifacts });
    expect(si(model.requests[0])).toContain("Notes: remember milk / .");
    await expect(h.run(agent, "hi")).rejects.toThrow(/no artifact service/);
    const strict = new LlmAgent({ name: "b", model, instruction: "{artifact.gone.txt}" });
    await expect(h.run(strict, "hi", { artifactService: artifacts })).rejects.toThrow(/"gone.txt" does not exist/);
  });

  it("sends a static instruction as system prompt and the dynamic one as user content before the latest message", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const agent = new LlmAgent({ name: "a", model, staticInstruction: "Static {x}.", instruction: "Dynamic {x}." });
    const h = await Harness.create({ x: 1 });
    await h.run(agent, "hi");
    const req = model.requests[0]!;
    expect(si(req).startsWith("Static {x}.\n\nYou are an agent.")).toBe(true);
    expect(req.contents).toEqual([
      { role: "user", parts: [{ text: "Dynamic 1." }] },
      { role: "user", parts: [{ text: "hi" }] },
    ]);
  });

  it("a plain string instruction with a static one: the same request as through the awaited path", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const agent = new LlmAgent({ name: "a", model, staticInstruction: "Static.", instruction: "Dynamic." });
    const h = await Harness.create();
    await h.run(agent, "hi");
    expect(si(model.requests[0]).startsWith("Static.\n\nYou are an agent.")).toBe(true);
    expect(model.requests[0]!.contents[0]).toEqual({ role: "user", parts: [{ text: "Dynamic." }] });
  });

  it("puts the root's global instruction first, then the agent's, then the identity line", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const child = new LlmAgent({ name: "child", model, instruction: "Child." });
    const root = new LlmAgent({ name: "root", model, globalInstruction: "Global.", subAgents: [child] });
    const h = await Harness.create();
    await h.run(child, "hi");
    // Then the transfer instructions (the child may transfer back to its parent).
    expect(
      si(model.requests[0]).startsWith('Global.\n\nChild.\n\nYou are an agent. Your internal name is "child".'),
    ).toBe(true);
    expect(root.subAgents).toContain(child);
  });

  it("calls an overriding canonicalInstruction, on a subclass or on the instance, also for a plain string", async () => {
    class Prefixed extends LlmAgent {
      override async canonicalInstruction(): Promise<{ instruction: string; bypassStateInjection: boolean }> {
        return { instruction: `Overridden: ${String(this.instruction)}`, bypassStateInjection: true };
      }
    }
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok"), ScriptedModel.text("ok")] });
    const h = await Harness.create();
    await h.run(new Prefixed({ name: "a", model, instruction: "Plain." }), "hi");
    expect(si(model.requests[0]).split("\n\nYou are an agent.")[0]).toBe("Overridden: Plain.");
    const own = new LlmAgent({ name: "b", model, instruction: "Plain." });
    own.canonicalInstruction = async () => ({ instruction: "From the instance.", bypassStateInjection: true });
    await h.run(own, "hi");
    expect(si(model.requests[1]).split("\n\nYou are an agent.")[0]).toBe("From the instance.");
    // The base class is still read without the override afterwards (the answer is kept per prototype).
    expect(await instructionFor("Plain again.")).toBe("Plain again.");
  });

  it("builds the instructions without awaiting when nothing needs it", async () => {
    const h = await Harness.create({ x: 1 });
    const contextOf = (agent: LlmAgent) =>
      new InvocationContext({
        invocationId: "e-1",
        agent,
        session: h.session,
        sessionService: h.sessionService,
        pluginManager: new PluginManager(),
      });
    const plain = new LlmAgent({ name: "a", model: new ScriptedModel(), instruction: "Plain." });
    const request = createLlmRequest({ model: "m" });
    const applied = applyInstructions(contextOf(plain), plain, request);
    expect(applied).toEqual([]);
    expect(getSystemInstructionText(request)).toBe('Plain.\n\nYou are an agent. Your internal name is "a".');
    // A placeholder needs the awaited path (state, or an artifact, is read to fill it).
    const templated = new LlmAgent({ name: "b", model: new ScriptedModel(), instruction: "Value {x}." });
    const filled = createLlmRequest({ model: "m" });
    const withState = applyInstructions(contextOf(templated), templated, filled);
    expect(withState).toBeInstanceOf(Promise);
    await withState;
    expect(getSystemInstructionText(filled)).toBe('Value 1.\n\nYou are an agent. Your internal name is "b".');
  });
});

describe("contents from history", () => {
  it("keeps only events of this branch and its ancestors", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const agent = new LlmAgent({ name: "a", model });
    const h = await Harness.create();
    await h.append({ author: "user", content: { role: "user", parts: [{ text: "root-level" }] } });
    await h.append({ author: "a", branch: "p", content: { role: "model", parts: [{ text: "ancestor" }] } });
    await h.append({ author: "a", branch: "p.a", content: { role: "model", parts: [{ text: "same" }] } });
    await h.append({ author: "a", branch: "p.b", content: { role: "model", parts: [{ text: "sibling" }] } });
    await h.append({ author: "a", branch: "p.ab", content: { role: "model", parts: [{ text: "prefix-lookalike" }] } });
    await h.append({ author: "a", content: { role: "model", parts: [{ text: "" }] } });
    await h.append({ author: "a", partial: true, content: { role: "model", parts: [{ text: "partial" }] } });
    await h.run(agent, "now", { branch: "p.a" });
    const textsSent = model.requests[0]!.contents.map((c) => c.parts![0]!.text);
    expect(textsSent).toEqual(["root-level", "ancestor", "same", "now"]);
  });

  it("presents other agents' turns as user context and skips their thoughts", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const agent = new LlmAgent({ name: "me", model });
    const h = await Harness.create();
    await h.append({ author: "user", content: { role: "user", parts: [{ text: "q" }] } });
    await h.append({
      author: "other",
      content: {
        role: "model",
        parts: [
          { text: "thinking", thought: true },
          { text: "hello" },
          { functionCall: { id: "1", name: "f", args: { a: 1 } } },
        ],
      },
    });
    await h.append({
      author: "other",
      content: { role: "user", parts: [{ functionResponse: { id: "1", name: "f", response: { r: 2 } } }] },
    });
    await h.append({ author: "me", content: { role: "model", parts: [{ text: "mine" }] } });
    await h.run(agent, "again");
    expect(model.requests[0]!.contents).toEqual([
      { role: "user", parts: [{ text: "q" }] },
      {
        role: "user",
        parts: [
          { text: "For context:" },
          { text: "[other] said: hello" },
          { text: '[other] called tool `f` with parameters: {"a":1}' },
        ],
      },
      { role: "user", parts: [{ text: "For context:" }, { text: '[other] `f` tool returned result: {"r":2}' }] },
      { role: "model", parts: [{ text: "mine" }] },
      { role: "user", parts: [{ text: "again" }] },
    ]);
  });

  it("replaces a compacted range by its summary at its position", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const agent = new LlmAgent({ name: "a", model });
    const h = await Harness.create();
    await h.append({ author: "user", timestamp: 100, content: { role: "user", parts: [{ text: "one" }] } });
    await h.append({ author: "a", timestamp: 101, content: { role: "model", parts: [{ text: "two" }] } });
    await h.append({ author: "user", timestamp: 102, content: { role: "user", parts: [{ text: "three" }] } });
    await h.append({
      author: "a",
      timestamp: 103,
      actions: {
        compaction: {
          startTimestamp: 100,
          endTimestamp: 101,
          compactedContent: { role: "model", parts: [{ text: "summary of one+two" }] },
        },
      },
    });
    await h.run(agent, "four");
    expect(model.requests[0]!.contents.map((c) => [c.role, c.parts![0]!.text])).toEqual([
      ["model", "summary of one+two"],
      ["user", "three"],
      ["user", "four"],
    ]);
  });

  it("lets a later, wider compaction supersede an earlier one", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const agent = new LlmAgent({ name: "a", model });
    const h = await Harness.create();
    await h.append({ author: "user", timestamp: 100, content: { role: "user", parts: [{ text: "one" }] } });
    await h.append({
      author: "a",
      timestamp: 101,
      actions: {
        compaction: {
          startTimestamp: 100,
          endTimestamp: 100,
          compactedContent: { role: "model", parts: [{ text: "s1" }] },
        },
      },
    });
    await h.append({ author: "user", timestamp: 102, content: { role: "user", parts: [{ text: "two" }] } });
    await h.append({
      author: "a",
      timestamp: 103,
      actions: {
        compaction: {
          startTimestamp: 100,
          endTimestamp: 102,
          compactedContent: { role: "model", parts: [{ text: "s2" }] },
        },
      },
    });
    await h.run(agent, "three");
    expect(model.requests[0]!.contents.map((c) => c.parts![0]!.text)).toEqual(["s2", "three"]);
  });

  it("with includeContents none sends only the current turn", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.functionCall("t", {}, "c"), ScriptedModel.text("done")] });
    const { FunctionTool } = await import("../../src/index.js");
    const tool = new FunctionTool({ name: "t", description: "t", execute: () => ({ ok: 1 }) });
    const agent = new LlmAgent({ name: "a", model, includeContents: IncludeContents.NONE, tools: [tool] });
    const h = await Harness.create();
    await h.append({ author: "user", content: { role: "user", parts: [{ text: "old question" }] } });
    await h.append({ author: "a", content: { role: "model", parts: [{ text: "old answer" }] } });
    await h.run(agent, "new question");
    expect(model.requests[0]!.contents).toEqual([{ role: "user", parts: [{ text: "new question" }] }]);
    expect(model.requests[1]!.contents.map((c) => Object.keys(c.parts![0]!)[0])).toEqual([
      "text",
      "functionCall",
      "functionResponse",
    ]);
  });

  it("drops confirmation round-trip events from the contents", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const agent = new LlmAgent({ name: "a", model });
    const h = await Harness.create();
    await h.append({
      author: "a",
      content: { role: "user", parts: [{ functionCall: { id: "adk-1", name: "adk_request_confirmation", args: {} } }] },
    });
    await h.append({ author: "user", content: { role: "user", parts: [{ text: "unrelated" }] } });
    await h.run(agent, "hi");
    expect(JSON.stringify(model.requests[0]!.contents)).not.toContain("adk_request_confirmation");
  });
});

describe("live settings in the request", () => {
  it("carries the run config's live settings that are set, and none for a text run", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok"), ScriptedModel.text("ok")] });
    const agent = new LlmAgent({ name: "a", model });
    const h = await Harness.create();
    await h.run(agent, "hi", {
      runConfig: {
        responseModalities: ["TEXT"],
        enableAffectiveDialog: false,
        sessionResumption: { transparent: true },
      },
    });
    expect(model.requests[0]!.liveConnectConfig).toEqual({
      responseModalities: ["TEXT"],
      enableAffectiveDialog: false,
      sessionResumption: { transparent: true },
    });
    await h.run(agent, "again");
    expect(model.requests[1]!.liveConnectConfig).toBeUndefined();
  });
});
