import { describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "../src/index.js";
import { backoffDelay, resolveRetryPolicy, retry, retryStream } from "../src/internal.js";

const noWait = (waits: number[]) => async (ms: number, signal?: AbortSignal) => {
  waits.push(ms);
  signal?.throwIfAborted();
};

describe("the one retry loop", () => {
  it("retries failures with exponential backoff up to maxAttempts, then throws the last error", async () => {
    const waits: number[] = [];
    let calls = 0;
    const failing = retry(
      async () => {
        calls++;
        throw new Error(`boom ${calls}`);
      },
      { policy: { maxAttempts: 4, initialDelayMs: 100, jitter: 0 }, sleep: noWait(waits) },
    );
    await expect(failing).rejects.toThrow("boom 4");
    expect(waits).toEqual([100, 200, 400]);
  });

  it("returns the first success; a decision can refuse, replace the error and set the delay", async () => {
    const waits: number[] = [];
    expect(
      await retry(async (n) => (n < 3 ? Promise.reject(new Error("x")) : n), {
        sleep: noWait(waits),
        decide: () => ({ retry: true, delayMs: 7 }),
      }),
    ).toBe(3);
    expect(waits).toEqual([7, 7]);
    const refused = retry(async () => Promise.reject(new Error("fatal")), {
      decide: () => ({ retry: false, thrown: new TypeError("mapped") }),
    });
    await expect(refused).rejects.toThrow(TypeError);
  });

  it("never retries a stream after it yielded, and retries it before", async () => {
    let attempts = 0;
    const seen: number[] = [];
    const run = async () => {
      for await (const x of retryStream(
        async function* () {
          attempts++;
          if (attempts === 1) throw new Error("before output");
          yield 1;
          throw new Error("after output");
        },
        { sleep: noWait([]) },
      ))
        seen.push(x);
    };
    await expect(run()).rejects.toThrow("after output");
    expect(attempts).toBe(2);
    expect(seen).toEqual([1]);
  });

  it("stops waiting when the signal aborts", async () => {
    const controller = new AbortController();
    const failing = retry(
      async () => {
        controller.abort(new Error("stopped"));
        throw new Error("boom");
      },
      { signal: controller.signal, policy: { maxAttempts: 5 } },
    );
    await expect(failing).rejects.toThrow("boom");
  });

  it("checks its policy and caps every delay", () => {
    expect(() => resolveRetryPolicy({ maxAttempts: 0 })).toThrow(ConfigurationError);
    const policy = resolveRetryPolicy({ initialDelayMs: 1000, maxDelayMs: 3000, jitter: 0 });
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, policy))).toEqual([1000, 2000, 3000, 3000]);
  });
});
