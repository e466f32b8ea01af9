import {
  AgentKitError,
  BaseLlm,
  ConfigurationError,
  FAILOVER_METADATA_KEY,
  MODEL_METADATA_KEY,
  type BaseLlmConnection,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { settleAll } from "@agentkit/core/internal";
import { underCallSignal } from "../call-signal.js";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";
import { classifyFailure } from "../retry/retry-policy.js";
import {
  CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitPermit,
  type CircuitState,
} from "./circuit-breaker.js";

export interface FallbackModelOptions {
  /** The models in order of preference: the first is tried first. */
  models: BaseLlm[];
  /** The model's name (default `fallback:` + the models' names joined by commas). */
  name?: string;
  /**
   * Which failures pass the request to the next model: a list of categories, or a predicate.
   * Default: retryable ones (`RATE_LIMIT`, `SERVER_ERROR`, `OVERLOADED`, `NETWORK`, `TIMEOUT`,
   * and any error its provider marked retryable). A cancelled call never fails over.
   */
  failoverOn?: readonly ErrorCategory[] | ((error: ProviderError) => boolean);
  /** One breaker per wrapped model (see `CircuitBreaker`); `false` turns them off. */
  circuitBreaker?: CircuitBreakerOptions | false;
  /** Told about every model given up on, for logs and metrics. */
  onFailover?: (event: FailoverEvent) => void;
}

/** A model given up on for one request. */
export interface FailoverEvent {
  /** The fallback model's name. */
  fallback: string;
  /** The model that failed or was skipped. */
  model: string;
  /** The failure's category, or `CIRCUIT_OPEN` when the model's breaker kept it out. */
  reason: ErrorCategory | "CIRCUIT_OPEN";
  error?: ProviderError;
  /** The model tried next; absent when none is left. */
  next?: string;
}

/** How one wrapped model is doing. */
export interface FallbackModelHealth {
  model: string;
  state: CircuitState;
  consecutiveFailures: number;
  /** Milliseconds until an open circuit lets a probe request through. */
  msUntilProbe: number;
}

interface Entry {
  model: BaseLlm;
  breaker?: CircuitBreaker;
}

type Outcome = "success" | "failure" | "release";

const NO_BREAKER: CircuitPermit = { success() {}, failure() {}, release() {} };

/**
 * Several models behind one: a request goes to the first model whose circuit is closed; when
 * it fails with a failure that `failoverOn` accepts (after the model's own retries, e.g. a
 * registry model's `RetryingModel`), the next model gets the same request. Other failures
 * (a bad request, bad credentials) are thrown as they are. A streamed response fails over
 * only while nothing has been yielded; after the first chunk an error propagates.
 *
 * Every response names the model that answered: `customMetadata["agentkit:model"]`, and
 * `modelVersion` when the model set none; `customMetadata["agentkit:failover"]` lists the
 * models given up on before it (`{ model, code }`).
 */
export class FallbackModel extends BaseLlm {
  private readonly entries: Entry[];
  private readonly failsOver: (error: ProviderError) => boolean;
  private readonly onFailover?: (event: FailoverEvent) => void;

  constructor(models: BaseLlm[], options?: Omit<FallbackModelOptions, "models">);
  constructor(options: FallbackModelOptions);
  constructor(first: BaseLlm[] | FallbackModelOptions, rest: Omit<FallbackModelOptions, "models"> = {}) {
    const options: FallbackModelOptions = Array.isArray(first) ? { ...rest, models: first } : first;
    const models = checkModels(options?.models);
    super({ model: options.name ?? `fallback:${models.map((m) => m.model).join(",")}` });
    const breaker = options.circuitBreaker;
    this.entries = models.map((model) => ({
      model,
      ...(breaker === false ? {} : { breaker: new CircuitBreaker(breaker ?? {}) }),
    }));
    const on = options.failoverOn;
    this.failsOver =
      typeof on === "function" ? on : Array.isArray(on) ? (e) => on.includes(e.category) : (e) => e.retryable;
    if (options.onFailover) this.onFailover = options.onFailover;
  }

  /** The wrapped models, in order. */
  get models(): readonly BaseLlm[] {
    return this.entries.map((e) => e.model);
  }

  /** Circuit state of each wrapped model. */
  health(): FallbackModelHealth[] {
    return this.entries.map(({ model, breaker }) => ({
      model: model.model,
      state: breaker?.state ?? "closed",
      consecutiveFailures: breaker?.consecutiveFailures ?? 0,
      msUntilProbe: breaker?.msUntilProbe ?? 0,
    }));
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    // The caller's signal and the request's own abortSignal both cancel the call.
    yield* underCallSignal(options.signal, request.config.abortSignal, (signal) =>
      this.generate(request, stream, signal ? { ...options, signal } : options),
    );
  }

  private async *generate(
    request: LlmRequest,
    stream: boolean | undefined,
    options: GenerateContentOptions,
  ): AsyncGenerator<LlmResponse, void, void> {
    const signal = options.signal;
    const given: { model: string; code: string }[] = [];
    let lastFailure: unknown;
    for (let i = 0; i < this.entries.length; i++) {
      const { model, breaker } = this.entries[i]!;
      signal?.throwIfAborted();
      const permit = breaker ? breaker.tryAcquire() : NO_BREAKER;
      if (!permit) {
        given.push({ model: model.model, code: "CIRCUIT_OPEN" });
        this.notify({ model: model.model, reason: "CIRCUIT_OPEN" }, i);
        continue;
      }
      let yielded = false;
      let outcome: Outcome = "release"; // a consumer that stops early says nothing about the provider
      try {
        for await (const response of model.generateContentAsync(request, stream, options)) {
          yielded = true;
          yield annotate(response, model.model, given);
        }
        outcome = "success";
        return;
      } catch (error) {
        const failure = this.classify(error, model.model, signal);
        outcome = failure.outcome;
        if (!failure.failOver || yielded) throw failure.thrown;
        lastFailure = failure.thrown;
        given.push({ model: model.model, code: failure.error.category });
        this.notify({ model: model.model, reason: failure.error.category, error: failure.error }, i);
      } finally {
        settle(permit, outcome);
      }
    }
    throw lastFailure ?? this.allOpenError();
  }

  /** Opens a live connection on the first model that accepts it, with the same failover rules. */
  override async connect(request: LlmRequest, options?: GenerateContentOptions): Promise<BaseLlmConnection> {
    const signal = options?.signal ?? request.config.abortSignal;
    let lastFailure: unknown;
    for (let i = 0; i < this.entries.length; i++) {
      const { model, breaker } = this.entries[i]!;
      signal?.throwIfAborted();
      const permit = breaker ? breaker.tryAcquire() : NO_BREAKER;
      if (!permit) {
        this.notify({ model: model.model, reason: "CIRCUIT_OPEN" }, i);
        continue;
      }
      try {
        const connection = await model.connect(request, options);
        permit.success();
        return connection;
      } catch (error) {
        const failure = this.classify(error, model.model, signal);
        settle(permit, failure.outcome);
        if (!failure.failOver) throw failure.thrown;
        lastFailure = failure.thrown;
        this.notify({ model: model.model, reason: failure.error.category, error: failure.error }, i);
      }
    }
    throw lastFailure ?? this.allOpenError();
  }

  /** Warms every wrapped model: a failover should not pay for loading the next adapter. */
  override async warmUp(): Promise<void> {
    await settleAll(
      this.entries.map((e) => e.model.warmUp()),
      () => `${this.model}: several models failed to warm up`,
    );
  }

  /** Closes every wrapped model (all are tried; failures are thrown together). */
  override async close(): Promise<void> {
    await settleAll(
      this.entries.map((e) => e.model.close()),
      () => `${this.model}: several models failed to close`,
    );
  }

  private classify(
    error: unknown,
    provider: string,
    signal: AbortSignal | undefined,
  ): { error: ProviderError; thrown: unknown; failOver: boolean; outcome: Outcome } {
    const { mapped, thrown } = classifyFailure(error, provider, signal);
    // Aborts and our own non-provider errors (e.g. a ConfigurationError) say nothing about the provider.
    const neutral =
      signal?.aborted === true ||
      mapped.category === ErrorCategory.CANCELLED ||
      (error instanceof AgentKitError && !(error instanceof ProviderError));
    if (neutral) return { error: mapped, thrown, failOver: false, outcome: "release" };
    const failOver = this.failsOver(mapped);
    // A provider that refused the request itself (400, 401…) is up: only failover failures count against it.
    return { error: mapped, thrown, failOver, outcome: failOver ? "failure" : "success" };
  }

  private notify(event: Omit<FailoverEvent, "fallback" | "next">, index: number): void {
    const next = this.entries[index + 1]?.model.model;
    this.onFailover?.({ fallback: this.model, ...event, ...(next ? { next } : {}) });
  }

  private allOpenError(): ProviderError {
    const waits = this.entries.map((e) => e.breaker?.msUntilProbe ?? 0);
    const retryAfterMs = Math.min(...waits);
    return new ProviderError({
      category: ErrorCategory.OVERLOADED,
      provider: this.model,
      message:
        `Every model of ${this.model} is kept out by its circuit breaker after repeated failures; the next ` +
        `one is tried again in ${retryAfterMs} ms.`,
      retryable: true,
      retryAfterMs,
    });
  }
}

function settle(permit: CircuitPermit, outcome: Outcome): void {
  if (outcome === "success") permit.success();
  else if (outcome === "failure") permit.failure();
  else permit.release();
}

function annotate(
  response: LlmResponse,
  model: string,
  given: readonly { model: string; code: string }[],
): LlmResponse {
  const metadata: Record<string, unknown> = { ...response.customMetadata };
  // A nested FallbackModel already named the model that really answered.
  if (typeof metadata[MODEL_METADATA_KEY] !== "string") metadata[MODEL_METADATA_KEY] = model;
  if (given.length > 0) {
    const inner = Array.isArray(metadata[FAILOVER_METADATA_KEY]) ? (metadata[FAILOVER_METADATA_KEY] as unknown[]) : [];
    metadata[FAILOVER_METADATA_KEY] = [...given.map((g) => ({ ...g })), ...inner];
  }
  return { ...response, customMetadata: metadata, modelVersion: response.modelVersion ?? model };
}

function checkModels(models: unknown): BaseLlm[] {
  if (!Array.isArray(models) || models.length === 0)
    throw new ConfigurationError("FallbackModel needs at least one model: new FallbackModel([primary, backup]).");
  models.forEach((model, i) => {
    if (typeof (model as Partial<BaseLlm> | null)?.generateContentAsync !== "function")
      throw new ConfigurationError(`FallbackModel: models[${i}] is not a model (a BaseLlm instance).`);
  });
  return models as BaseLlm[];
}
