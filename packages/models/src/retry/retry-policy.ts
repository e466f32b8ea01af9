import { AgentKitError, ConfigurationError } from "@agentkit/core";
import { mapProviderError } from "../errors/error-mapper.js";
import { ErrorCategory, type ProviderError, RetryStrategy } from "../errors/provider-error.js";

/** How often and how long to retry a failed provider call. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 = no retries). */
  maxAttempts: number;
  /** First backoff delay, and the delay of `FIXED_DELAY`. */
  initialDelayMs: number;
  /** Upper bound of any delay, `Retry-After` included. */
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
  const policy = { ...DEFAULT_RETRY_POLICY, ...stripUndefined(options) };
  const fail = (field: string, rule: string) => {
    throw new ConfigurationError(
      `Invalid retry policy: ${field} must be ${rule} (got ${String(policy[field as keyof RetryPolicy])}).`,
    );
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) fail("maxAttempts", "an integer >= 1");
  if (!(policy.initialDelayMs >= 0)) fail("initialDelayMs", ">= 0");
  if (!(policy.maxDelayMs >= 0)) fail("maxDelayMs", ">= 0");
  if (!(policy.multiplier >= 1)) fail("multiplier", ">= 1");
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) fail("jitter", "between 0 and 1");
  return policy;
}

/**
 * The wait before the next attempt after attempt `attempt` (1-based) failed. A server's
 * `Retry-After` wins over the strategy; every delay is capped by `maxDelayMs`.
 */
export function computeDelay(
  strategy: RetryStrategy,
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return Math.min(retryAfterMs, policy.maxDelayMs);
  let base: number;
  switch (strategy) {
    case RetryStrategy.EXPONENTIAL_BACKOFF:
      base = policy.initialDelayMs * policy.multiplier ** Math.max(0, attempt - 1);
      break;
    case RetryStrategy.FIXED_DELAY:
      base = policy.initialDelayMs;
      break;
    default:
      return 0;
  }
  const spread = policy.jitter * (2 * random() - 1);
  return Math.round(Math.min(policy.maxDelayMs, Math.max(0, base * (1 + spread))));
}

export interface RetryEvent {
  /** The attempt that failed (1-based). */
  attempt: number;
  error: ProviderError;
  delayMs: number;
}

export interface WithRetriesOptions {
  policy?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  /** Provider name for errors that are not yet `ProviderError`s. */
  provider?: string;
  /** Called before each wait. */
  onRetry?: (event: RetryEvent) => void;
  /** Replaceable for tests; must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/**
 * Runs `fn` until it succeeds, fails with a non-retryable error, or `maxAttempts` is reached.
 * Failures are classified with `mapProviderError`; the final one is thrown as the mapped
 * `ProviderError`, except aborts and other agentkit errors, which are rethrown as they are.
 */
export async function withRetries<T>(
  fn: (attempt: number) => Promise<T>,
  options: WithRetriesOptions = {},
): Promise<T> {
  const policy = resolveRetryPolicy(options.policy);
  const sleep = options.sleep ?? abortableSleep;
  const { signal } = options;
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (error) {
      const decision = classifyFailure(error, options.provider ?? "unknown", signal);
      if (!decision.retry || attempt >= policy.maxAttempts) throw decision.thrown;
      const delayMs = computeDelay(
        decision.mapped.strategy,
        attempt,
        policy,
        decision.mapped.retryAfterMs,
        options.random,
      );
      options.onRetry?.({ attempt, error: decision.mapped, delayMs });
      await sleep(delayMs, signal);
    }
  }
}

export interface FailureDecision {
  retry: boolean;
  mapped: ProviderError;
  /** What to throw if not retrying. */
  thrown: unknown;
}

/** Shared by `withRetries` and `RetryingModel`: retry or not, and what to throw. */
export function classifyFailure(error: unknown, provider: string, signal?: AbortSignal): FailureDecision {
  const mapped = mapProviderError(error, provider);
  // Aborts and our own non-provider errors (e.g. ConfigurationError) keep their identity.
  const keep = mapped.category === ErrorCategory.CANCELLED || (error instanceof AgentKitError && mapped !== error);
  const thrown = keep ? error : mapped;
  return { retry: !keep && mapped.retryable && !signal?.aborted, mapped, thrown };
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

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
