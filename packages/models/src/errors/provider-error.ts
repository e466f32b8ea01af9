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
  cause?: unknown;
}

/** A failed model-provider call, classified. `code` is the category. */
export class ProviderError extends AgentKitError {
  readonly category: ErrorCategory;
  readonly status?: number;
  readonly provider: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;

  constructor(options: ProviderErrorOptions) {
    super(options.category, options.message, { cause: options.cause });
    this.category = options.category;
    this.provider = options.provider;
    this.retryable = options.retryable ?? DEFAULT_RETRYABLE[options.category];
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** Whether a category is worth retrying unless a specific error says otherwise. */
export const DEFAULT_RETRYABLE: Readonly<Record<ErrorCategory, boolean>> = {
  AUTH_ERROR: false,
  CLIENT_ERROR: false,
  RATE_LIMIT: true,
  SERVER_ERROR: true,
  OVERLOADED: true,
  NETWORK: true,
  TIMEOUT: true,
  CONTENT_FILTER: false,
  CONTEXT_LENGTH: false,
  CANCELLED: false,
  UNKNOWN: false,
};

export function isProviderError(error: unknown): error is ProviderError {
  return error instanceof ProviderError;
}
