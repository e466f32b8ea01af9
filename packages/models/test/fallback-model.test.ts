import { describe, expect, it } from "@jest/globals";
import {
  BaseLlm,
  ConfigurationError,
  createLlmRequest,
  FAILOVER_METADATA_KEY,
  MODEL_METADATA_KEY,
  type LlmResponse,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  CircuitBreaker,
  ErrorCategory,
  FallbackModel,
  ProviderError,
  RetryingModel,
  type FailoverEvent,
} from "../src/index.js";

const httpError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });
const noWait = async (_ms: number, signal?: AbortSignal) => signal?.throwIfAborted();

class FakeClock {
  ms = 0;
  readonly now = () => this.ms;
}

async function collect(model: BaseLlm, stream = false, signal?: AbortSignal): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const r of model.generateContentAsync(createLlmRequest(), stream, signal ? { signal } : {})) out.push(r);
  return out;
}

const failure = (model: BaseLlm) =>
  collect(model).then(
    () => undefined,
    (error: unknown) => error,
  );

/** A model whose calls wait until the test settles them, oldest first (to hold requests in flight). */
class ControlledModel extends BaseLlm {
  calls = 0;
  closed = 0;
  private readonly waiting: ((value: LlmResponse | Error) => void)[] = [];
  private readonly watchers: { count: number; resolve: () => void }[] = [];
  constructor(name: string) {
    super({ model: name });
  }
  /** Resolves once `count` calls have started. */
  started(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.watchers.push({ count, resolve });
      this.wake();
    });
  }
  /** Settles the oldest waiting call with a response or an error. */
  settle(value: LlmResponse | Error): void {
    const next = this.waiting.shift();
    if (!next) throw new Error("no call is waiting");
    next(value);
  }
  override async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    this.calls++;
    const value = await new Promise<LlmResponse | Error>((resolve) => {
      this.waiting.push(resolve);
      this.wake();
    });
    if (value instanceof Error) throw value;
    yield value;
  }
  override async close(): Promise<void> {
    this.closed++;
  }
  private wake(): void {
    for (const w of this.watchers.filter((w) => this.calls >= w.count)) w.resolve();
  }
}

describe("FallbackModel", () => {
  it("passes the request to the next model when the first fails retryably after its retries", async () => {
    const primary = new ScriptedModel({
      model: "primary",
      steps: [{ error: httpError(503) }, { error: httpError(503) }],
    });
    const backup = new ScriptedModel({ model: "backup", steps: [ScriptedModel.text("from backup")] });
    const events: FailoverEvent[] = [];
    const model = new FallbackModel(
      [new RetryingModel(primary, { policy: { maxAttempts: 2 }, sleep: noWait }), backup],
      {
        onFailover: (e) => events.push(e),
      },
    );
    const [response] = await collect(model);
    expect(response!.content?.parts?.[0]?.text).toBe("from backup");
    expect(response!.customMetadata).toEqual({
      [MODEL_METADATA_KEY]: "backup",
      [FAILOVER_METADATA_KEY]: [{ model: "primary", code: "SERVER_ERROR" }],
    });
    expect(response!.modelVersion).toBe("backup");
    expect(primary.requests).toHaveLength(2); // the retry policy ran first
    expect(backup.requests[0]!.contents).toEqual(primary.requests[0]!.contents); // the same request
    expect(events).toEqual([
      expect.objectContaining({
        fallback: "fallback:primary,backup",
        model: "primary",
        reason: "SERVER_ERROR",
        next: "backup",
      }),
    ]);
    expect(model.model).toBe("fallback:primary,backup");
  });

  it.each([
    [429, ErrorCategory.RATE_LIMIT],
    [500, ErrorCategory.SERVER_ERROR],
    [529, ErrorCategory.OVERLOADED],
  ])("fails over on HTTP %i (%s)", async (status, category) => {
    const model = new FallbackModel({
      models: [
        new ScriptedModel({ model: "a", steps: [{ error: httpError(status) }] }),
        new ScriptedModel({ model: "b", steps: [ScriptedModel.text("ok")] }),
      ],
    });
    const [response] = await collect(model);
    expect(response!.customMetadata?.[FAILOVER_METADATA_KEY]).toEqual([{ model: "a", code: category }]);
  });

  it("does not fail over a request the provider refused (400, 401) unless configured", async () => {
    const backup = new ScriptedModel({ model: "backup", steps: [ScriptedModel.text("unused")] });
    const model = new FallbackModel([new ScriptedModel({ model: "a", steps: [{ error: httpError(400) }] }), backup]);
    const error = await failure(model);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ category: ErrorCategory.CLIENT_ERROR, provider: "a" });
    expect(backup.requests).toHaveLength(0);

    const configured = new FallbackModel(
      [new ScriptedModel({ model: "a", steps: [{ error: httpError(401) }] }), backup],
      {
        failoverOn: [ErrorCategory.AUTH_ERROR],
      },
    );
    const [response] = await collect(configured);
    expect(response!.customMetadata?.[FAILOVER_METADATA_KEY]).toEqual([{ model: "a", code: "AUTH_ERROR" }]);
  });

  it("streams: fails over before the first chunk, never after it", async () => {
    const early = new FallbackModel([
      new ScriptedModel({ model: "a", steps: [{ error: httpError(503) }] }),
      new ScriptedModel({ model: "b", steps: [{ chunks: ["He", "llo"] }] }),
    ]);
    const streamed = await collect(early, true);
    expect(
      streamed.map((r) => [r.content?.parts?.[0]?.text, r.partial ?? false, r.customMetadata?.[MODEL_METADATA_KEY]]),
    ).toEqual([
      ["He", true, "b"],
      ["llo", true, "b"],
      ["Hello", false, "b"],
    ]);

    class DropsMidStream extends BaseLlm {
      override async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
        yield { content: { role: "model", parts: [{ text: "Hel" }] }, partial: true };
        throw Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
      }
    }
    const backup = new ScriptedModel({ model: "b", steps: [ScriptedModel.text("unused")] });
    const late = new FallbackModel([new DropsMidStream({ model: "a" }), backup]);
    const seen: LlmResponse[] = [];
    await expect(
      (async () => {
        for await (const r of late.generateContentAsync(createLlmRequest(), true)) seen.push(r);
      })(),
    ).rejects.toMatchObject({ category: ErrorCategory.NETWORK });
    expect(seen).toHaveLength(1);
    expect(backup.requests).toHaveLength(0);
  });

  it("keeps a failing model out with its circuit breaker, probes it after openMs, and closes again", async () => {
    const clock = new FakeClock();
    const primary = new ScriptedModel({
      model: "a",
      steps: [
        { error: httpError(500) },
        { error: httpError(500) },
        { error: httpError(500) },
        ScriptedModel.text("a is back"),
      ],
    });
    const backup = new ScriptedModel({ model: "b" });
    for (let i = 0; i < 4; i++) backup.push(ScriptedModel.text(`b${i}`));
    const model = new FallbackModel([primary, backup], {
      circuitBreaker: { failureThreshold: 2, openMs: 1_000, now: clock.now },
    });

    await collect(model);
    await collect(model);
    expect(model.health()[0]).toMatchObject({ state: "open", consecutiveFailures: 2, msUntilProbe: 1_000 });
    // Open: the primary is not even asked.
    const [skipped] = await collect(model);
    expect(primary.requests).toHaveLength(2);
    expect(skipped!.customMetadata?.[FAILOVER_METADATA_KEY]).toEqual([{ model: "a", code: "CIRCUIT_OPEN" }]);

    // Half-open after openMs: one probe; it fails, so the circuit opens for another openMs.
    clock.ms += 1_000;
    expect(model.health()[0]!.state).toBe("half-open");
    await collect(model);
    expect(primary.requests).toHaveLength(3);
    expect(model.health()[0]).toMatchObject({ state: "open", msUntilProbe: 1_000 });

    clock.ms += 1_000;
    const [answer] = await collect(model);
    expect(answer!.customMetadata).toEqual({ [MODEL_METADATA_KEY]: "a" });
    expect(model.health()[0]).toMatchObject({ state: "closed", consecutiveFailures: 0 });
    backup.assertConsumed(); // four answers: two failovers, one skip, one failed probe
  });

  it("shares one breaker between concurrent requests and lets a single probe through", async () => {
    const clock = new FakeClock();
    const primary = new ControlledModel("a");
    const backup = new ScriptedModel({ model: "b" });
    for (let i = 0; i < 3; i++) backup.push(ScriptedModel.text(`b${i}`));
    const model = new FallbackModel([primary, backup], {
      circuitBreaker: { failureThreshold: 2, openMs: 500, now: clock.now },
    });

    // Two requests in flight at once both fail: together they reach the threshold.
    const first = collect(model);
    const second = collect(model);
    await primary.started(2);
    primary.settle(httpError(503));
    primary.settle(httpError(503));
    expect((await Promise.all([first, second])).map((r) => r[0]!.customMetadata?.[MODEL_METADATA_KEY])).toEqual([
      "b",
      "b",
    ]);
    expect(model.health()[0]!.state).toBe("open");

    // Half-open: one probe goes to "a"; a request made meanwhile skips it.
    clock.ms += 500;
    const probe = collect(model);
    await primary.started(3);
    const meanwhile = await collect(model);
    expect(meanwhile[0]!.customMetadata?.[FAILOVER_METADATA_KEY]).toEqual([{ model: "a", code: "CIRCUIT_OPEN" }]);
    primary.settle(ScriptedModel.text("a is back"));
    expect((await probe)[0]!.customMetadata?.[MODEL_METADATA_KEY]).toBe("a");
    expect(model.health()[0]).toMatchObject({ state: "closed", consecutiveFailures: 0 });
    expect(primary.calls).toBe(3);
  });

  it("throws a retryable OVERLOADED error naming the wait when every circuit is open", async () => {
    const clock = new FakeClock();
    const model = new FallbackModel(
      [
        new ScriptedModel({ model: "a", steps: [{ error: httpError(503) }] }),
        new ScriptedModel({ model: "b", steps: [{ error: httpError(503) }] }),
      ],
      { circuitBreaker: { failureThreshold: 1, openMs: 2_000, now: clock.now } },
    );
    expect(await failure(model)).toMatchObject({ category: ErrorCategory.SERVER_ERROR, provider: "b" });
    clock.ms += 500;
    const error = (await failure(model)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ category: ErrorCategory.OVERLOADED, retryable: true, retryAfterMs: 1_500 });
  });

  it("honours the abort signal: no failover, the breaker untouched", async () => {
    const primary = new ControlledModel("a");
    const backup = new ScriptedModel({ model: "b", steps: [ScriptedModel.text("unused")] });
    const model = new FallbackModel([primary, backup], { circuitBreaker: { failureThreshold: 1 } });
    const controller = new AbortController();
    const run = collect(model, false, controller.signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    await primary.started(1);
    controller.abort();
    // The wrapped model ends its call the way adapters do on abort.
    primary.settle(Object.assign(new Error("The operation was aborted"), { name: "AbortError" }));
    expect(await run).toMatchObject({ name: "AbortError" });
    expect(backup.requests).toHaveLength(0);
    expect(model.health()[0]).toMatchObject({ state: "closed", consecutiveFailures: 0 });
    // Already aborted: nothing is called.
    await expect(collect(model, false, AbortSignal.abort())).rejects.toBeDefined();
    expect(primary.calls).toBe(1);
    expect(backup.requests).toHaveLength(0);
  });

  it("close() closes every wrapped model; bad construction is a ConfigurationError", async () => {
    const a = new ControlledModel("a");
    const b = new ControlledModel("b");
    await new FallbackModel({ models: [a, b] }).close();
    expect([a.closed, b.closed]).toEqual([1, 1]);
    expect(() => new FallbackModel([])).toThrow(ConfigurationError);
    expect(() => new FallbackModel([{} as BaseLlm])).toThrow("models[0] is not a model");
    expect(() => new CircuitBreaker({ failureThreshold: 0 })).toThrow(ConfigurationError);
  });
});
