import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  BasePlugin,
  ConfigurationError,
  getSystemInstructionText,
  IncludeContents,
  isFinalResponse,
  LlmAgent,
  LlmCallsLimitExceededError,
  ModelRegistry,
  RunAbortedError,
  StreamingMode,
  type LlmRequest,
  type LlmResponse,
} from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";
import { Harness, texts } from "./flows/helpers.js";

describe("LlmAgent basics", () => {
  it("answers with the model's text and records the request", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.text("Hello!", {
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
        }),
      ],
    });
    const agent = new LlmAgent({
      name: "helper",
      model,
      instruction: "Be brief.",
      generateContentConfig: { temperature: 0.2 },
    });
    const h = await Harness.create();
    const events = await h.run(agent, "hi");
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event!.author).toBe("helper");
    expect(event!.invocationId).toBe(h.lastContext!.invocationId);
    expect(event!.content).toEqual({ role: "model", parts: [{ text: "Hello!" }] });
    expect(event!.usageMetadata).toEqual({ promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 });
    expect(isFinalResponse(event!)).toBe(true);
    const req = model.requests[0]!;
    expect(req.model).toBe("scripted-model");
    expect(req.config.temperature).toBe(0.2);
    expect(req.contents).toEqual([{ role: "user", parts: [{ text: "hi" }] }]);
    expect(req.config.systemInstruction).toBe('Be brief.\n\nYou are an agent. Your internal name is "helper".');
    model.assertConsumed();
  });

  it("passes finishReason, metadata and merges run customMetadata", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.text("x", {
          finishReason: "STOP",
          groundingMetadata: { g: 1 },
          customMetadata: { m: 1 },
          avgLogprobs: -0.5,
        }),
      ],
    });
    const agent = new LlmAgent({ name: "a", model });
    const h = await Harness.create();
    const [event] = await h.run(agent, "q", { runConfig: { customMetadata: { run: "r", m: 0 } } });
    expect(event).toMatchObject({
      finishReason: "STOP",
      groundingMetadata: { g: 1 },
      customMetadata: { run: "r", m: 1 },
      avgLogprobs: -0.5,
    });
  });

  it("inherits the model of the nearest LlmAgent ancestor", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("from child")] });
    const child = new LlmAgent({ name: "child" });
    const parent = new LlmAgent({ name: "parent", model, subAgents: [child] });
    expect(child.canonicalModel).toBe(model);
    const h = await Harness.create();
    expect(texts(await h.run(child, "hi"))).toEqual(["from child"]);
    expect(parent.canonicalModel).toBe(model);
  });

  it("fails with ConfigurationError when no model is found", async () => {
    const agent = new LlmAgent({ name: "lonely" });
    expect(() => agent.canonicalModel).toThrow(ConfigurationError);
    const h = await Harness.create();
    await expect(h.run(agent, "hi")).rejects.toThrow(/has no model/);
  });

  it("resolves a model name through the registry, and says how to pass one when missing", async () => {
    const model = new ScriptedModel({ model: "fake-1", steps: [ScriptedModel.text("resolved")] });
    const registry = new ModelRegistry().register(/^fake-/, () => model);
    const agent = new LlmAgent({ name: "named", model: "fake-1" });
    const h = await Harness.create();
    expect(texts(await h.run(agent, "hi", { modelRegistry: registry }))).toEqual(["resolved"]);
    expect(model.requests[0]!.model).toBe("fake-1");
    await expect(h.run(agent, "again")).rejects.toThrow(/pass `modelRegistry` to the Runner/);
    await expect(h.run(agent, "again")).rejects.toBeInstanceOf(ConfigurationError);
  });

  it("rejects generateContentConfig fields the agent owns and invalid options", () => {
    const model = new ScriptedModel();
    expect(() => new LlmAgent({ name: "a", model, generateContentConfig: { tools: [] } })).toThrow(
      /generateContentConfig.tools/,
    );
    expect(() => new LlmAgent({ name: "a", model, generateContentConfig: { systemInstruction: "x" } })).toThrow(
      /systemInstruction/,
    );
    expect(() => new LlmAgent({ name: "a", model, generateContentConfig: { responseSchema: {} } })).toThrow(
      /responseSchema/,
    );
    expect(() => new LlmAgent({ name: "a", model, includeContents: "all" as IncludeContents })).toThrow(
      ConfigurationError,
    );
    expect(() => new LlmAgent({ name: "a", model, outputSchema: z.string() })).toThrow(/must describe an object/);
    expect(IncludeContents).toEqual({ DEFAULT: "default", NONE: "none" });
  });

  it("does not let request changes leak into the agent's config", async () => {
    const model = new ScriptedModel({
      steps: [
        (req: LlmRequest) => {
          req.config.temperature = 9;
          return ScriptedModel.text("a");
        },
        (req: LlmRequest) => ScriptedModel.text(String(req.config.temperature)),
      ],
    });
    const agent = new LlmAgent({ name: "a", model, generateContentConfig: { temperature: 0.1 } });
    const h = await Harness.create();
    await h.run(agent, "1");
    expect(texts(await h.run(agent, "2"))).toEqual(["0.1"]);
    expect(agent.generateContentConfig).toEqual({ temperature: 0.1 });
  });
});

describe("streaming", () => {
  it("yields partial events then the complete one (SSE); only the complete one is stored", async () => {
    const model = new ScriptedModel({ steps: [{ chunks: ["Hel", "lo"] }] });
    const agent = new LlmAgent({ name: "s", model, outputKey: "answer" });
    const h = await Harness.create();
    const events = await h.run(agent, "hi", { runConfig: { streamingMode: StreamingMode.SSE } });
    expect(events.map((e) => [e.partial ?? false, e.content?.parts?.[0]?.text])).toEqual([
      [true, "Hel"],
      [true, "lo"],
      [false, "Hello"],
    ]);
    expect(events[0]!.actions.stateDelta).toEqual({});
    expect(h.session.events.filter((e) => e.author === "s")).toHaveLength(1);
    expect(h.session.state.answer).toBe("Hello");
  });

  it("asks for a stream only in SSE mode", async () => {
    const model = new ScriptedModel({ steps: [{ chunks: ["a", "b"] }] });
    const agent = new LlmAgent({ name: "s", model });
    const h = await Harness.create();
    const events = await h.run(agent, "hi");
    expect(events.map((e) => e.partial ?? false)).toEqual([false]);
    expect(texts(events)).toEqual(["ab"]);
  });
});

describe("outputKey and outputSchema", () => {
  it("saves the final text to state through the event's stateDelta", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("Paris")] });
    const agent = new LlmAgent({ name: "a", model, outputKey: "capital" });
    const h = await Harness.create();
    const [event] = await h.run(agent, "capital of France?");
    expect(event!.actions.stateDelta).toEqual({ capital: "Paris" });
    expect(h.session.state.capital).toBe("Paris");
  });

  it("asks for JSON with the schema when the agent has no tools, and stores the parsed object", async () => {
    const schema = z.object({ city: z.string(), population: z.number() });
    const model = new ScriptedModel({ steps: [ScriptedModel.text('{"city":"Paris","population":2}')] });
    const agent = new LlmAgent({ name: "a", model, outputSchema: schema, outputKey: "out" });
    const h = await Harness.create();
    await h.run(agent, "q");
    const req = model.requests[0]!;
    expect(req.config.responseMimeType).toBe("application/json");
    expect(req.config.responseJsonSchema).toMatchObject({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city", "population"],
    });
    expect(req.toolNames).toEqual([]);
    expect(h.session.state.out).toEqual({ city: "Paris", population: 2 });
  });

  it("reports an answer that does not match the schema instead of storing it", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text('{"city":1}')] });
    const agent = new LlmAgent({ name: "a", model, outputSchema: z.object({ city: z.string() }), outputKey: "out" });
    const h = await Harness.create();
    const [event] = await h.run(agent, "q");
    expect(event!.errorCode).toBe("OUTPUT_SCHEMA_VALIDATION_FAILED");
    expect(event!.content?.parts?.[0]?.text).toBe('{"city":1}');
    expect(h.session.state.out).toBeUndefined();
  });
});

describe("model callbacks", () => {
  it("a before-model callback's response skips the model; plugins run first", async () => {
    const calls: string[] = [];
    class P extends BasePlugin {
      constructor(private readonly answer?: string) {
        super("p");
      }
      override beforeModelCallback(): LlmResponse | undefined {
        calls.push("plugin");
        return this.answer ? ScriptedModel.text(this.answer) : undefined;
      }
    }
    const model = new ScriptedModel();
    const agent = new LlmAgent({
      name: "a",
      model,
      beforeModelCallback: [
        ({ context }) => {
          calls.push("agent");
          context.state.set("seen", true);
          return ScriptedModel.text("from agent callback");
        },
        () => {
          calls.push("never");
          return undefined;
        },
      ],
    });
    const h = await Harness.create();
    const events = await h.run(agent, "hi", { plugins: [new P()] });
    expect(texts(events)).toEqual(["from agent callback"]);
    expect(calls).toEqual(["plugin", "agent"]);
    expect(events[0]!.actions.stateDelta).toEqual({ seen: true });
    expect(model.requests).toHaveLength(0);

    calls.length = 0;
    expect(texts(await h.run(agent, "hi", { plugins: [new P("from plugin")] }))).toEqual(["from plugin"]);
    expect(calls).toEqual(["plugin"]);
  });

  it("an after-model callback replaces the response; a plugin's wins over the agent's", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("raw"), ScriptedModel.text("raw")] });
    const agent = new LlmAgent({
      name: "a",
      model,
      afterModelCallback: ({ response }) => ScriptedModel.text(`agent saw ${response.content?.parts?.[0]?.text}`),
    });
    class P extends BasePlugin {
      override afterModelCallback(): LlmResponse {
        return ScriptedModel.text("plugin");
      }
    }
    const h = await Harness.create();
    expect(texts(await h.run(agent, "1"))).toEqual(["agent saw raw"]);
    expect(texts(await h.run(agent, "2", { plugins: [new P("p")] }))).toEqual(["plugin"]);
  });
});

describe("model errors", () => {
  it("turns a thrown model error into an error event and ends the agent's run", async () => {
    const failure = Object.assign(new Error("quota exhausted"), { code: 429 });
    const model = new ScriptedModel({ steps: [{ error: failure }, ScriptedModel.text("unused")] });
    const agent = new LlmAgent({ name: "a", model });
    const h = await Harness.create();
    const events = await h.run(agent, "hi");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ author: "a", errorCode: "429", errorMessage: "quota exhausted" });
    expect(events[0]!.content).toBeUndefined();
    expect(model.remaining).toBe(1);
  });

  it("uses UNKNOWN_ERROR when the error has no code", async () => {
    const model = new ScriptedModel({ steps: [{ error: new Error("boom") }] });
    const h = await Harness.create();
    const [event] = await h.run(new LlmAgent({ name: "a", model }), "hi");
    expect(event).toMatchObject({ errorCode: "UNKNOWN_ERROR", errorMessage: "boom" });
  });

  it("lets onModelErrorCallback stand in (plugin first, then the agent's)", async () => {
    const seen: unknown[] = [];
    const model = new ScriptedModel({ steps: [{ error: new Error("down") }, { error: new Error("down again") }] });
    const agent = new LlmAgent({
      name: "a",
      model,
      onModelErrorCallback: ({ error }) => {
        seen.push((error as Error).message);
        return ScriptedModel.text("fallback answer");
      },
    });
    class P extends BasePlugin {
      override onModelErrorCallback(): LlmResponse {
        return ScriptedModel.text("plugin fallback");
      }
    }
    const h = await Harness.create();
    const events = await h.run(agent, "hi");
    expect(texts(events)).toEqual(["fallback answer"]);
    expect(events[0]!.errorCode).toBeUndefined();
    expect(seen).toEqual(["down"]);
    expect(texts(await h.run(agent, "hi", { plugins: [new P("p")] }))).toEqual(["plugin fallback"]);
    expect(seen).toEqual(["down"]);
  });

  it("propagates ConfigurationError from the model", async () => {
    const model = new ScriptedModel({ steps: [{ error: new ConfigurationError("missing API key") }] });
    const h = await Harness.create();
    await expect(h.run(new LlmAgent({ name: "a", model }), "hi")).rejects.toThrow("missing API key");
  });
});

describe("limits and cancellation", () => {
  it("throws LlmCallsLimitExceededError past runConfig.maxLlmCalls", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("transfer_to_agent", { agent_name: "b" }),
        ScriptedModel.text("b answers"),
        ScriptedModel.text("never"),
      ],
    });
    const b = new LlmAgent({ name: "b" });
    const agent = new LlmAgent({ name: "a", model, subAgents: [b] });
    const h = await Harness.create();
    await expect(h.run(agent, "hi", { runConfig: { maxLlmCalls: 1 } })).rejects.toBeInstanceOf(
      LlmCallsLimitExceededError,
    );
    expect(model.requests).toHaveLength(1);
  });

  it("stops with RunAbortedError when the signal fires during a model call", async () => {
    const controller = new AbortController();
    // Aborts as the model call starts (a checked step's check runs first), then would wait an hour.
    const model = new ScriptedModel({
      steps: [{ step: ScriptedModel.text("late"), expect: () => controller.abort() }],
      delayMs: 3_600_000,
    });
    const h = await Harness.create();
    const run = h.run(new LlmAgent({ name: "a", model }), "hi", { signal: controller.signal });
    await expect(run).rejects.toBeInstanceOf(RunAbortedError);
    expect(model.requests).toHaveLength(1);
  });

  it("does not call the model when the signal already fired", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("x")] });
    const controller = new AbortController();
    controller.abort();
    const h = await Harness.create();
    await expect(h.run(new LlmAgent({ name: "a", model }), "hi", { signal: controller.signal })).rejects.toBeInstanceOf(
      RunAbortedError,
    );
    expect(model.requests).toHaveLength(0);
  });
});

describe("instructions in the request", () => {
  it("puts the global instruction (root's only) first, then the instruction, then identity", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const child = new LlmAgent({
      name: "child",
      description: "Knows things.",
      instruction: "Child rules.",
      globalInstruction: "ignored",
    });
    const root = new LlmAgent({
      name: "root",
      model,
      globalInstruction: "Global {topic}.",
      subAgents: [child],
      disallowTransferToPeers: true,
    });
    const h = await Harness.create({ topic: "cats" });
    await h.run(child, "hi");
    const si = getSystemInstructionText(model.requests[0] as unknown as LlmRequest);
    expect(
      si.startsWith(
        'Global cats.\n\nChild rules.\n\nYou are an agent. Your internal name is "child". The description about you ' +
          'is "Knows things."',
      ),
    ).toBe(true);
    expect(si).not.toContain("ignored");
    expect(root.subAgents).toEqual([child]);
  });
});
