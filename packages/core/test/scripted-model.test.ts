import { describe, expect, it } from "@jest/globals";
import {
  AgentKitError,
  appendTools,
  createLlmRequest,
  createUserContent,
  FunctionTool,
  type LlmRequest,
  type LlmResponse,
} from "../src/index.js";
import { ScriptedModel, ScriptError } from "../src/testing/index.js";

async function collect(
  model: ScriptedModel,
  request: LlmRequest = createLlmRequest(),
  stream = false,
  signal?: AbortSignal,
): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const r of model.generateContentAsync(request, stream, { signal })) out.push(r);
  return out;
}

describe("ScriptedModel", () => {
  it("answers calls with its steps in order", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.text("one"), ScriptedModel.text("two", { turnComplete: true })],
    });
    expect(model.model).toBe("scripted-model");
    expect(model.remaining).toBe(2);
    expect(await collect(model)).toEqual([{ content: { role: "model", parts: [{ text: "one" }] } }]);
    expect(await collect(model)).toEqual([
      { content: { role: "model", parts: [{ text: "two" }] }, turnComplete: true },
    ]);
    expect(model.remaining).toBe(0);
    model.assertConsumed();
  });

  it("streams chunk steps as partials then the complete text, and sends only the text otherwise", async () => {
    const step = { chunks: ["Hel", "lo"], final: { finishReason: "STOP", usageMetadata: { totalTokenCount: 3 } } };
    const model = new ScriptedModel({ steps: [step, step] });
    const streamed = await collect(model, createLlmRequest(), true);
    expect(streamed).toEqual([
      { content: { role: "model", parts: [{ text: "Hel" }] }, partial: true },
      { content: { role: "model", parts: [{ text: "lo" }] }, partial: true },
      {
        content: { role: "model", parts: [{ text: "Hello" }] },
        finishReason: "STOP",
        usageMetadata: { totalTokenCount: 3 },
      },
    ]);
    const whole = await collect(model, createLlmRequest(), false);
    expect(whole).toEqual([
      {
        content: { role: "model", parts: [{ text: "Hello" }] },
        finishReason: "STOP",
        usageMetadata: { totalTokenCount: 3 },
      },
    ]);
  });

  it("yields stream steps exactly, whatever the stream flag", async () => {
    const responses: LlmResponse[] = [
      { partial: true, content: { role: "model", parts: [{ text: "a" }] } },
      { turnComplete: true },
    ];
    const model = new ScriptedModel({ steps: [{ stream: responses }] });
    expect(await collect(model)).toEqual(responses);
  });

  it("throws the error of an error step", async () => {
    const failure = new Error("quota exceeded");
    const model = new ScriptedModel({ steps: [{ error: failure }, ScriptedModel.text("after")] });
    await expect(collect(model)).rejects.toBe(failure);
    expect(await collect(model)).toHaveLength(1);
  });

  it("computes function steps from the request", async () => {
    const model = new ScriptedModel({
      steps: [async (request) => ScriptedModel.text(`you said ${request.contents.length} thing(s)`)],
    });
    const request = createLlmRequest({ contents: [createUserContent("hi")] });
    expect(await collect(model, request)).toEqual([ScriptedModel.text("you said 1 thing(s)")]);
  });

  it("runs expect checks against the request before answering", async () => {
    const seen: number[] = [];
    const model = new ScriptedModel({
      steps: [
        { expect: (r) => void seen.push(r.contents.length), step: ScriptedModel.text("ok") },
        {
          expect: () => {
            throw new Error("wrong request");
          },
          step: ScriptedModel.text("never"),
        },
      ],
    });
    expect(
      await collect(model, createLlmRequest({ contents: [createUserContent("a"), createUserContent("b")] })),
    ).toEqual([ScriptedModel.text("ok")]);
    expect(seen).toEqual([2]);
    await expect(collect(model)).rejects.toThrow("wrong request");
  });

  it("records requests with tool names instead of tool instances, as copies without the signal", async () => {
    const tool = new FunctionTool({ name: "lookup", description: "d", execute: () => 1 });
    const request = createLlmRequest({ model: "m", contents: [createUserContent("q")] });
    appendTools(request, [tool]);
    request.config.abortSignal = new AbortController().signal;
    const model = new ScriptedModel({ steps: [ScriptedModel.text("a")] });
    await collect(model, request);
    const recorded = model.requests[0]!;
    expect(recorded.toolNames).toEqual(["lookup"]);
    expect("toolsDict" in recorded).toBe(false);
    expect(recorded.config.abortSignal).toBeUndefined();
    expect(recorded.config.tools?.[0]?.functionDeclarations?.[0]?.name).toBe("lookup");
    request.contents.push(createUserContent("later"));
    expect(recorded.contents).toHaveLength(1);
  });

  it("throws ScriptError when the script is empty, naming the call", async () => {
    const model = new ScriptedModel({ model: "tiny", steps: [ScriptedModel.text("only")] });
    await collect(model);
    const error = await collect(model, createLlmRequest({ contents: [createUserContent("again")] })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ScriptError);
    expect(error).toBeInstanceOf(AgentKitError);
    expect((error as ScriptError).code).toBe("SCRIPT_ERROR");
    expect((error as ScriptError).message).toMatch(/"tiny" got call #2 but its script is empty.*again/);
    expect(model.requests).toHaveLength(2);
  });

  it("assertConsumed reports unused steps; push appends steps", async () => {
    const model = new ScriptedModel();
    model.assertConsumed();
    model.push(ScriptedModel.text("x"), ScriptedModel.text("y"));
    expect(() => model.assertConsumed()).toThrow(ScriptError);
    expect(() => model.assertConsumed()).toThrow(/2 scripted step/);
    await collect(model);
    await collect(model);
    expect(() => model.assertConsumed()).not.toThrow();
  });

  it("builds function-call responses", () => {
    expect(ScriptedModel.functionCall("f", { a: 1 }, "id-1")).toEqual({
      content: { role: "model", parts: [{ functionCall: { name: "f", args: { a: 1 }, id: "id-1" } }] },
    });
    expect(ScriptedModel.functionCall("g").content?.parts?.[0]?.functionCall).toEqual({ name: "g", args: {} });
    expect(ScriptedModel.functionCalls([{ name: "a" }, { name: "b", args: { x: 2 }, id: "2" }]).content?.parts).toEqual(
      [{ functionCall: { name: "a", args: {} } }, { functionCall: { name: "b", args: { x: 2 }, id: "2" } }],
    );
  });

  it("waits delayMs before answering and stops waiting when aborted", async () => {
    const model = new ScriptedModel({ delayMs: 40, steps: [ScriptedModel.text("late"), ScriptedModel.text("never")] });
    const started = Date.now();
    expect(await collect(model)).toEqual([ScriptedModel.text("late")]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);

    const controller = new AbortController();
    const pending = collect(model, createLlmRequest(), false, controller.signal);
    setTimeout(() => controller.abort(new Error("stop")), 5);
    await expect(pending).rejects.toThrow("stop");
  });
});
