import { AgentKitError } from "@agentkit/core";

/** What went wrong with a model provider call, independent of the vendor. */
export const ErrorCategory = {
  AUTH_ERROR: "AUTH_ERROR",
  CLIENT_ERROR: "CLIENT_ERROR",
  RATE_LIMIT: "RATE_LIMIT",
  SERVER_ERROR: "SERVER_ERROR",
  OVERLOADED: "OVERLOADED",
  NETWORK: "NETWORK",
  TIMEOUT: "TIMEOUT",
  CONTENT_FILTER: "CONTENT_FILTER",
  CONTEXT_LENGTH: "CONTEXT_LENGTH",
  CANCELLED: "CANCELLED",
  UNKNOWN: "UNKNOWN",
} as const;
export type ErrorCategory = (typeof ErrorCategory)[keyof typeof ErrorCategory];

/** How a failed call of a category is retried. */
export const RetryStrategy = {
  EXPONENTIAL_BACKOFF: "EXPONENTIAL_BACKOFF",
  FIXED_DELAY: "FIXED_DELAY",
  IMMEDIATE_RETRY: "IMMEDIATE_RETRY",
  NONE: "NONE",
} as const;
export type RetryStrategy = (typeof RetryStrategy)[keyof typeof RetryStrategy];

export interface ProviderErrorOptions {
  category: ErrorCategory;
  /** Provider name, e.g. "openai", "anthropic". */
  provider: string;
  message: string;
  status?: number;
  /** Overrides the category's default retryability (e.g. a retryable 409). */
  retryable?: boolean;
  /** Server-requested wait (Retry-After / retry-after-ms). */
  retryAfterMs?: number;
  /** Overrides the category's default strategy. */
  strategy?: RetryStrategy;
  cause?: unknown;
}

/** A failed model-provider call, classified. `code` is the category. */
export class ProviderError extends AgentKitError {
  readonly category: ErrorCategory;
  readonly status?: number;
  readonly provider: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  /** How to retry; `NONE` when not retryable. */
  readonly strategy: RetryStrategy;

  constructor(options: ProviderErrorOptions) {
    super(options.category, options.message, { cause: options.cause });
    const policy = CATEGORY_RETRY[options.category];
    this.category = options.category;
    this.provider = options.provider;
    this.retryable = options.retryable ?? policy.retryable;
    // A retryable error of a normally final category (e.g. 409) waits a fixed delay.
    this.strategy = !this.retryable
      ? RetryStrategy.NONE
      : (options.strategy ?? (policy.strategy === RetryStrategy.NONE ? RetryStrategy.FIXED_DELAY : policy.strategy));
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

export interface CategoryRetry {
  retryable: boolean;
  strategy: RetryStrategy;
}

/**
 * Per category: retried or not, and how. Throttling and server trouble back off
 * exponentially; a dropped connection is usually fixed by a fresh one (immediate retry);
 * a timeout waits a fixed delay. Caller mistakes, filters and cancellations are final.
 */
export const CATEGORY_RETRY: Readonly<Record<ErrorCategory, CategoryRetry>> = {
  AUTH_ERROR: { retryable: false, strategy: RetryStrategy.NONE },
  CLIENT_ERROR: { retryable: false, strategy: RetryStrategy.NONE },
  RATE_LIMIT: { retryable: true, strategy: RetryStrategy.EXPONENTIAL_BACKOFF },
  SERVER_ERROR: { retryable: true, strategy: RetryStrategy.EXPONENTIAL_BACKOFF },
  OVERLOADED: { retryable: true, strategy: RetryStrategy.EXPONENTIAL_BACKOFF },
  NETWORK: { retryable: true, strategy: RetryStrategy.IMMEDIATE_RETRY },
  TIMEOUT: { retryable: true, strategy: RetryStrategy.FIXED_DELAY },
  CONTENT_FILTER: { retryable: false, strategy: RetryStrategy.NONE },
  CONTEXT_LENGTH: { retryable: false, strategy: RetryStrategy.NONE },
  CANCELLED: { retryable: false, strategy: RetryStrategy.NONE },
  UNKNOWN: { retryable: false, strategy: RetryStrategy.NONE },
};

/** Whether a category is worth retrying unless a specific error says otherwise. */
export const DEFAULT_RETRYABLE: Readonly<Record<ErrorCategory, boolean>> = Object.fromEntries(
  Object.entries(CATEGORY_RETRY).map(([category, entry]) => [category, entry.retryable]),
) as Record<ErrorCategory, boolean>;

export function isProviderError(error: unknown): error is ProviderError {
  return error instanceof ProviderError;
}
