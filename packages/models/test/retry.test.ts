import { describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import {
  computeDelay,
  DEFAULT_RETRY_POLICY,
  ErrorCategory,
  ProviderError,
  resolveRetryPolicy,
  RetryStrategy,
  withRetries,
  type RetryEvent,
} from "../src/index.js";

const policy = resolveRetryPolicy({ jitter: 0 });
const httpError = (status: number, headers?: Record<string, string>) =>
  Object.assign(new Error(`HTTP ${status}`), { status, ...(headers ? { headers } : {}) });

/** Records requested waits and returns at once (still honouring an aborted signal). */
function recordingSleep(waits: number[]) {
  return async (ms: number, signal?: AbortSignal) => {
    waits.push(ms);
    signal?.throwIfAborted();
  };
}

describe("resolveRetryPolicy", () => {
  it("fills in the defaults", () => {
    expect(resolveRetryPolicy()).toEqual({
      maxAttempts: 3,
      initialDelayMs: 500,
      maxDelayMs: 30_000,
      multiplier: 2,
      jitter: 0.2,
    });
    expect(resolveRetryPolicy({ maxAttempts: 5, jitter: undefined }).jitter).toBe(DEFAULT_RETRY_POLICY.jitter);
  });

  it("rejects invalid values with a ConfigurationError", () => {
    expect(() => resolveRetryPolicy({ maxAttempts: 0 })).toThrow(ConfigurationError);
    expect(() => resolveRetryPolicy({ jitter: 1.5 })).toThrow(/jitter/);
    expect(() => resolveRetryPolicy({ multiplier: 0.5 })).toThrow(/multiplier/);
  });
});

describe("computeDelay", () => {
  it("grows exponentially per attempt and caps at maxDelayMs", () => {
    const delays = [1, 2, 3, 4].map((a) => computeDelay(RetryStrategy.EXPONENTIAL_BACKOFF, a, policy));
    expect(delays).toEqual([500, 1000, 2000, 4000]);
    expect(computeDelay(RetryStrategy.EXPONENTIAL_BACKOFF, 20, policy)).toBe(30_000);
  });

  it("waits the same for FIXED_DELAY and nothing for IMMEDIATE_RETRY / NONE", () => {
    expect([1, 2, 5].map((a) => computeDelay(RetryStrategy.FIXED_DELAY, a, policy))).toEqual([500, 500, 500]);
    expect(computeDelay(RetryStrategy.IMMEDIATE_RETRY, 3, policy)).toBe(0);
    expect(computeDelay(RetryStrategy.NONE, 1, policy)).toBe(0);
  });

  it("lets Retry-After win over the strategy, capped by maxDelayMs", () => {
    expect(computeDelay(RetryStrategy.EXPONENTIAL_BACKOFF, 1, policy, 7000)).toBe(7000);
    expect(computeDelay(RetryStrategy.IMMEDIATE_RETRY, 1, policy, 0)).toBe(0);
    expect(computeDelay(RetryStrategy.FIXED_DELAY, 1, policy, 120_000)).toBe(30_000);
  });

  it("spreads the delay by ±jitter", () => {
    const jittery = resolveRetryPolicy({ jitter: 0.2 });
    expect(computeDelay(RetryStrategy.FIXED_DELAY, 1, jittery, undefined, () => 0)).toBe(400);
    expect(computeDelay(RetryStrategy.FIXED_DELAY, 1, jittery, undefined, () => 1)).toBe(600);
    expect(computeDelay(RetryStrategy.FIXED_DELAY, 1, jittery, undefined, () => 0.5)).toBe(500);
  });
});

describe("withRetries", () => {
  it("retries a retryable failure and returns the later success", async () => {
    const waits: number[] = [];
    const events: RetryEvent[] = [];
    let calls = 0;
    const result = await withRetries(
      async (attempt) => {
        calls++;
        if (attempt < 3) throw httpError(503);
        return "ok";
      },
      { policy: { jitter: 0 }, provider: "openai", sleep: recordingSleep(waits), onRetry: (e) => events.push(e) },
    );
    expect(result).toBe("ok");
    expect(calls).toBe(3);
    expect(waits).toEqual([500, 1000]);
    expect(events.map((e) => [e.attempt, e.error.category, e.delayMs])).toEqual([
      [1, ErrorCategory.SERVER_ERROR, 500],
      [2, ErrorCategory.SERVER_ERROR, 1000],
    ]);
  });

  it("honours Retry-After from the error's headers", async () => {
    const waits: number[] = [];
    let calls = 0;
    await withRetries(
      async () => {
        if (calls++ === 0) throw httpError(429, { "retry-after": "2" });
        return 1;
      },
      { sleep: recordingSleep(waits) },
    );
    expect(waits).toEqual([2000]);
  });

  it("stops at a non-retryable error and throws it mapped", async () => {
    let calls = 0;
    const failure = withRetries(
      async () => {
        calls++;
        throw httpError(401);
      },
      { provider: "anthropic", sleep: recordingSleep([]) },
    );
    await expect(failure).rejects.toMatchObject({
      category: ErrorCategory.AUTH_ERROR,
      provider: "anthropic",
      status: 401,
    });
    expect(calls).toBe(1);
  });

  it("gives up after maxAttempts with the last error", async () => {
    let calls = 0;
    const failure = withRetries(
      async () => {
        calls++;
        throw httpError(500);
      },
      { policy: { maxAttempts: 4 }, sleep: recordingSleep([]) },
    );
    await expect(failure).rejects.toBeInstanceOf(ProviderError);
    expect(calls).toBe(4);
  });

  it("rethrows agentkit errors that are not provider errors unchanged", async () => {
    const config = new ConfigurationError("bad");
    await expect(
      withRetries(async () => {
        throw config;
      }),
    ).rejects.toBe(config);
  });

  it("stops when aborted during the wait, with the real timer cleared", async () => {
    const controller = new AbortController();
    let calls = 0;
    const failure = withRetries(
      async () => {
        calls++;
        throw httpError(503);
      },
      {
        // An hour's wait: only the abort can end it. It fires once the wait has begun.
        policy: { initialDelayMs: 3_600_000, jitter: 0 },
        signal: controller.signal,
        onRetry: () => void setImmediate(() => controller.abort(new Error("stop"))),
      },
    );
    await expect(failure).rejects.toThrow("stop");
    expect(calls).toBe(1);
  });

  it("does not start when the signal is already aborted", async () => {
    let calls = 0;
    const signal = AbortSignal.abort(new Error("already"));
    await expect(withRetries(async () => ++calls, { signal })).rejects.toThrow("already");
    expect(calls).toBe(0);
  });
});
