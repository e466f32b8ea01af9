import {
  BaseLlm,
  type BaseLlmConnection,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { retryStream } from "@agentkit/core/internal";
import { underCallSignal } from "../call-signal.js";
import { providerRetryOptions, resolveRetryPolicy, type RetryEvent, type RetryPolicy } from "./retry-policy.js";

export interface RetryingModelOptions {
  /** Provider name for errors the inner model did not map itself. */
  provider?: string;
  policy?: Partial<RetryPolicy>;
  onRetry?: (event: RetryEvent) => void;
  /** Replaceable for tests; must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/**
 * Wraps a model and retries a failed call when the error is retryable (see
 * `mapProviderError`) and nothing was yielded yet. After partial output a retry would
 * duplicate text the caller has already seen, so the error is rethrown instead.
 */
export class RetryingModel extends BaseLlm {
  readonly inner: BaseLlm;
  private readonly policy: RetryPolicy;
  private readonly options: RetryingModelOptions;

  constructor(inner: BaseLlm, options: RetryingModelOptions = {}) {
    super({ model: inner.model });
    this.inner = inner;
    this.options = options;
    this.policy = resolveRetryPolicy(options.policy);
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    // The caller's signal and the request's own abortSignal both cancel the call and its waits.
    yield* underCallSignal(options.signal, request.config.abortSignal, (signal) => {
      const innerOptions = signal ? { ...options, signal } : options;
      return retryStream(
        () => this.inner.generateContentAsync(request, stream, innerOptions),
        providerRetryOptions(this.options.provider ?? this.model, {
          ...this.options,
          policy: this.policy,
          ...(signal ? { signal } : {}),
        }),
      );
    });
  }

  override connect(request: LlmRequest, options?: GenerateContentOptions): Promise<BaseLlmConnection> {
    return this.inner.connect(request, options);
  }

  override warmUp(): Promise<void> {
    return this.inner.warmUp();
  }

  override close(): Promise<void> {
    return this.inner.close();
  }
}
