import { ConfigurationError } from "../errors/agentkit-error.js";

/** How often and how long to retry a failed call. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 = no retries). */
  maxAttempts: number;
  /** First backoff delay. */
  initialDelayMs: number;
  /** Upper bound of any delay (a server's `Retry-After` included). */
  maxDelayMs: number;
  /** Growth factor of exponential backoff. */
  multiplier: number;
  /** Random spread as a fraction of the delay (0 = none, 0.2 = ±20%). */
  jitter: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  multiplier: 2,
  jitter: 0.2,
});

/** Defaults filled in and values checked; bad values throw `ConfigurationError`. */
export function resolveRetryPolicy(options: Partial<RetryPolicy> = {}): RetryPolicy {
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...defined };
  const fail = (field: keyof RetryPolicy, rule: string) => {
    throw new ConfigurationError(`Invalid retry policy: ${field} must be ${rule} (got ${String(policy[field])}).`);
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) fail("maxAttempts", "an integer >= 1");
  if (!(policy.initialDelayMs >= 0)) fail("initialDelayMs", ">= 0");
  if (!(policy.maxDelayMs >= 0)) fail("maxDelayMs", ">= 0");
  if (!(policy.multiplier >= 1)) fail("multiplier", ">= 1");
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) fail("jitter", "between 0 and 1");
  return policy;
}

/** Exponential backoff after attempt `attempt` (1-based) failed, with jitter, capped by `maxDelayMs`. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const base = policy.initialDelayMs * policy.multiplier ** Math.max(0, attempt - 1);
  const spread = policy.jitter * (2 * random() - 1);
  return Math.round(Math.min(policy.maxDelayMs, Math.max(0, base * (1 + spread))));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** What to do after a failed attempt. */
export interface RetryDecision {
  retry: boolean;
  /** The wait before the next attempt (default: `backoffDelay`), e.g. a server's `Retry-After`. */
  delayMs?: number;
  /** What to throw when giving up (default: the error itself). */
  thrown?: unknown;
}

export interface RetryOptions<E = unknown> {
  policy?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  /** Classifies a failure (default: retry every failure with backoff). */
  decide?: (error: unknown, attempt: number) => RetryDecision;
  /** Called before each wait. */
  onRetry?: (info: { attempt: number; error: E; delayMs: number }) => void;
  /**
   * Retry also after the attempt yielded (default false: a retry would repeat what the caller
   * has seen). Workflow nodes set it: their events are stored as they come, and a retried node
   * starts over.
   */
  retryAfterOutput?: boolean;
  /** Replaceable for tests; must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/**
 * The one retry loop of the code base, for streams: runs `attempt(n)` and yields what it yields;
 * when it fails before yielding anything, waits and runs it again, up to `maxAttempts`. After
 * output was yielded a retry would repeat what the caller has already seen, so the error is
 * thrown instead. Aborting the signal stops the loop (the wait rejects at once).
 */
export async function* retryStream<T>(
  attempt: (n: number) => AsyncIterable<T>,
  options: RetryOptions = {},
): AsyncGenerator<T, void, void> {
  const policy = resolveRetryPolicy(options.policy);
  const sleep = options.sleep ?? abortableSleep;
  for (let n = 1; ; n++) {
    options.signal?.throwIfAborted();
    let yielded = false;
    try {
      for await (const item of attempt(n)) {
        yielded = true;
        yield item;
      }
      return;
    } catch (error) {
      if (yielded && !options.retryAfterOutput) throw error;
      const decision = options.decide?.(error, n) ?? { retry: true };
      const giveUp = !decision.retry || n >= policy.maxAttempts || options.signal?.aborted === true;
      if (giveUp) throw "thrown" in decision ? decision.thrown : error;
      const delayMs = Math.min(policy.maxDelayMs, decision.delayMs ?? backoffDelay(n, policy, options.random));
      options.onRetry?.({ attempt: n, error, delayMs });
      await sleep(delayMs, options.signal);
    }
  }
}

/** `retryStream` for one async result. */
export async function retry<T>(fn: (n: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  for await (const value of retryStream(async function* (n) {
    yield await fn(n);
  }, options))
    return value;
  throw new Error("unreachable: retryStream ended without a value");
}
