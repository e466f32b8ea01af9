import {
  BaseLlm,
  type BaseLlmConnection,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import {
  abortableSleep,
  classifyFailure,
  computeDelay,
  resolveRetryPolicy,
  type RetryEvent,
  type RetryPolicy,
} from "./retry-policy.js";

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
    const signal = options.signal ?? request.config.abortSignal;
    const sleep = this.options.sleep ?? abortableSleep;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      let yielded = false;
      try {
        for await (const response of this.inner.generateContentAsync(request, stream, options)) {
          yielded = true;
          yield response;
        }
        return;
      } catch (error) {
        if (yielded) throw error;
        const decision = classifyFailure(error, this.options.provider ?? this.model, signal);
        if (!decision.retry || attempt >= this.policy.maxAttempts) throw decision.thrown;
        const { mapped } = decision;
        const delayMs = computeDelay(mapped.strategy, attempt, this.policy, mapped.retryAfterMs, this.options.random);
        this.options.onRetry?.({ attempt, error: mapped, delayMs });
        await sleep(delayMs, signal);
      }
    }
  }

  override connect(request: LlmRequest, options?: GenerateContentOptions): Promise<BaseLlmConnection> {
    return this.inner.connect(request, options);
  }

  override close(): Promise<void> {
    return this.inner.close();
  }
}
