import { describe, expect, it } from "@jest/globals";
import { BaseLlm, ConfigurationError, createLlmRequest, type LlmResponse } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { ErrorCategory, ProviderError, RetryingModel, type RetryEvent } from "../src/index.js";

const httpError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });
const noWait = async (_ms: number, signal?: AbortSignal) => signal?.throwIfAborted();

async function collect(model: BaseLlm, stream = false, signal?: AbortSignal): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const r of model.generateContentAsync(createLlmRequest(), stream, signal ? { signal } : {})) out.push(r);
  return out;
}

/** A provider that streams a chunk and then loses the connection. */
class DropsMidStreamModel extends BaseLlm {
  calls = 0;
  constructor() {
    super({ model: "drops-mid-stream" });
  }
  override async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    this.calls++;
    yield { content: { role: "model", parts: [{ text: "Hel" }] }, partial: true };
    throw Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
  }
}

describe("RetryingModel", () => {
  it("retries a retryable failure that happened before any output", async () => {
    const inner = new ScriptedModel({
      steps: [{ error: httpError(503) }, { error: httpError(429) }, { chunks: ["Hel", "lo"] }],
    });
    const events: RetryEvent[] = [];
    const model = new RetryingModel(inner, { provider: "openai", sleep: noWait, onRetry: (e) => events.push(e) });
    const responses = await collect(model, true);
    expect(responses.map((r) => [r.content?.parts?.[0]?.text, r.partial ?? false])).toEqual([
      ["Hel", true],
      ["lo", true],
      ["Hello", false],
    ]);
    expect(inner.requests).toHaveLength(3);
    expect(events.map((e) => e.error.category)).toEqual([ErrorCategory.SERVER_ERROR, ErrorCategory.RATE_LIMIT]);
    expect(model.model).toBe(inner.model);
  });

  it("does not retry after partial output: the failure is rethrown as is", async () => {
    const inner = new DropsMidStreamModel();
    const model = new RetryingModel(inner, { sleep: noWait });
    const seen: LlmResponse[] = [];
    const run = (async () => {
      for await (const r of model.generateContentAsync(createLlmRequest(), true)) seen.push(r);
    })();
    await expect(run).rejects.toThrow("read ECONNRESET");
    expect(seen).toHaveLength(1);
    expect(inner.calls).toBe(1);
  });

  it("does not retry a non-retryable error and throws it as a ProviderError", async () => {
    const inner = new ScriptedModel({ steps: [{ error: httpError(400) }, ScriptedModel.text("unused")] });
    const model = new RetryingModel(inner, { provider: "anthropic", sleep: noWait });
    const failure = collect(model);
    await expect(failure).rejects.toBeInstanceOf(ProviderError);
    await expect(failure).rejects.toMatchObject({ category: ErrorCategory.CLIENT_ERROR, provider: "anthropic" });
    expect(inner.remaining).toBe(1);
  });

  it("stops after maxAttempts", async () => {
    const inner = new ScriptedModel({
      steps: [{ error: httpError(500) }, { error: httpError(500) }, ScriptedModel.text("late")],
    });
    const model = new RetryingModel(inner, { policy: { maxAttempts: 2 }, sleep: noWait });
    await expect(collect(model)).rejects.toMatchObject({ category: ErrorCategory.SERVER_ERROR });
    expect(inner.requests).toHaveLength(2);
  });

  it("passes a ConfigurationError through unchanged", async () => {
    const config = new ConfigurationError("no adapter");
    const model = new RetryingModel(new ScriptedModel({ steps: [{ error: config }] }), { sleep: noWait });
    await expect(collect(model)).rejects.toBe(config);
  });

  it("stops waiting when the signal aborts", async () => {
    const controller = new AbortController();
    // The first call fails; the abort fires once the retry's hour-long wait has begun.
    const failFirst = {
      step: { error: httpError(503) },
      expect: () => void setImmediate(() => controller.abort(new Error("user stop"))),
    };
    const inner = new ScriptedModel({ steps: [failFirst, ScriptedModel.text("never")] });
    const model = new RetryingModel(inner, { policy: { initialDelayMs: 3_600_000 } });
    const failure = collect(model, false, controller.signal);
    await expect(failure).rejects.toThrow("user stop");
    expect(inner.requests).toHaveLength(1);
  });

  it("closes the inner model", async () => {
    let closed = 0;
    const inner = new (class extends ScriptedModel {
      override async close() {
        closed++;
      }
    })();
    await new RetryingModel(inner).close();
    expect(closed).toBe(1);
  });
});
