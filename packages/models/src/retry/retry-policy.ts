import { AgentKitError, type RetryPolicy } from "@agentkit/core";
import { backoffDelay, resolveRetryPolicy, retry, type RetryOptions } from "@agentkit/core/internal";
import { mapProviderError } from "../errors/error-mapper.js";
import { ErrorCategory, type ProviderError, RetryStrategy } from "../errors/provider-error.js";

export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "@agentkit/core";
export { abortableSleep, resolveRetryPolicy } from "@agentkit/core/internal";

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
  switch (strategy) {
    case RetryStrategy.EXPONENTIAL_BACKOFF:
      return backoffDelay(attempt, policy, random);
    case RetryStrategy.FIXED_DELAY:
      return backoffDelay(1, policy, random);
    default:
      return 0;
  }
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
 * Runs `fn` until it succeeds, fails with a non-retryable error, or `maxAttempts` is reached
 * (core's retry loop with the provider decision of `providerRetryDecision`). The final failure
 * is thrown as the mapped `ProviderError`, except aborts and other agentkit errors, which are
 * rethrown as they are.
 */
export async function withRetries<T>(
  fn: (attempt: number) => Promise<T>,
  options: WithRetriesOptions = {},
): Promise<T> {
  return retry(fn, providerRetryOptions(options.provider ?? "unknown", options));
}

/**
 * Core retry options for provider calls: failures are classified with `mapProviderError`
 * (retryable categories only, a server's `Retry-After` honoured, the strategy's delay
 * otherwise), and `onRetry` receives the mapped `ProviderError`. Shared by `withRetries`,
 * `RetryingModel` and the Gemini adapter.
 */
export function providerRetryOptions(provider: string, options: Omit<WithRetriesOptions, "provider">): RetryOptions {
  const policy = resolveRetryPolicy(options.policy);
  return {
    policy,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.random ? { random: options.random } : {}),
    decide: (error, attempt) => {
      const { retry: again, mapped, thrown } = classifyFailure(error, provider, options.signal);
      return {
        retry: again,
        thrown,
        delayMs: computeDelay(mapped.strategy, attempt, policy, mapped.retryAfterMs, options.random),
      };
    },
    ...(options.onRetry
      ? {
          onRetry: ({ attempt, error, delayMs }) =>
            options.onRetry!({ attempt, error: mapProviderError(error, provider), delayMs }),
        }
      : {}),
  };
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
