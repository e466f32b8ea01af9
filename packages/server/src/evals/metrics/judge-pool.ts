import {
  createLlmRequest,
  getTextOf,
  type BaseLlm,
  type GenerateContentConfig,
  type LlmResponse,
} from "@agentkit/core";
import { camelizeKeys } from "@agentkit/core/internal";
import type { JudgeModelOptions } from "./criteria.js";

/** Where judges come from and how many may run at once. */
export interface JudgeOptions {
  /** The judge for criteria that name no `judge_model`. */
  judgeModel?: BaseLlm;
  /** Resolves a criterion's `judge_model` name (any model of the registry: Gemini, OpenAI, Anthropic, …). */
  modelRegistry?: { resolve(name: string): BaseLlm };
  /** Judge calls in flight at most, over every metric and case of the server or run (default 4). */
  judgeConcurrency?: number;
}

/** One sample of a judge: its raw answer, kept in the result for inspection. */
export interface JudgeSample {
  raw: string;
}

const RAW_LIMIT = 4000;

/** ADK's judge when a criterion names none and no default judge is configured. */
const DEFAULT_JUDGE_MODEL = "gemini-2.5-flash";

/**
 * The judges of a metric registry: resolves a criterion's judge model and asks it, sampling
 * `num_samples` times, with a bound on concurrent calls shared by every metric. Calls follow
 * the run's AbortSignal, also while they wait for a slot.
 */
export class JudgePool {
  private readonly limit: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: JudgeOptions = {}) {
    this.limit = Math.max(1, Math.floor(options.judgeConcurrency ?? 4));
  }

  /** Why no judge can run for these options (no model at all), or undefined. */
  get unavailableReason(): string | undefined {
    return this.options.judgeModel || this.options.modelRegistry
      ? undefined
      : "needs a judge model: pass judgeModel (or modelRegistry, for criteria naming judge_model) to createEvalRouter or the eval run";
  }

  /**
   * The judge for a criterion: with a registry, its `judge_model` (else the default judge, else
   * ADK's default judge model); without one, the default judge.
   */
  resolve(options: JudgeModelOptions | undefined): BaseLlm | { unavailable: string } {
    const registry = this.options.modelRegistry;
    const name = options?.judgeModel ?? (this.options.judgeModel ? undefined : DEFAULT_JUDGE_MODEL);
    if (registry && name) {
      try {
        return registry.resolve(name);
      } catch (error) {
        return { unavailable: `judge model "${name}" cannot be resolved: ${(error as Error).message}` };
      }
    }
    return this.options.judgeModel ?? { unavailable: this.unavailableReason ?? "no judge model" };
  }

  /** `samples` answers of the judge to one prompt (calls run concurrently, within the bound). */
  async sample(
    model: BaseLlm,
    prompt: string,
    options: { samples: number; config?: Record<string, unknown>; signal?: AbortSignal },
  ): Promise<JudgeSample[]> {
    const calls = Array.from({ length: options.samples }, () =>
      this.ask(model, prompt, options.config, options.signal),
    );
    return Promise.all(calls);
  }

  /** One answer of the judge (throws when the model fails or the run is cancelled). */
  async ask(
    model: BaseLlm,
    prompt: string,
    config?: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<JudgeSample> {
    await this.acquire(signal);
    try {
      const request = createLlmRequest({
        model: model.model,
        contents: [{ role: "user", parts: [{ text: prompt }] }],
        config: camelizeKeys(config ?? {}) as GenerateContentConfig,
      });
      let last: LlmResponse | undefined;
      try {
        for await (const response of model.generateContentAsync(request, false, { signal }))
          if (!response.partial) last = response;
      } catch (error) {
        signal?.throwIfAborted();
        throw new Error(`the judge model ${model.model} failed: ${(error as Error).message ?? String(error)}`, {
          cause: error,
        });
      }
      signal?.throwIfAborted();
      if (last?.errorCode)
        throw new Error(`the judge model ${model.model} failed: ${last.errorMessage ?? last.errorCode}`);
      const raw = last?.content ? getTextOf(last.content) : "";
      return { raw: raw.length > RAW_LIMIT ? `${raw.slice(0, RAW_LIMIT)}…` : raw };
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        this.active++;
        resolve();
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

/**
 * Runs a judged metric's scoring, turning judge failures into a NOT_EVALUATED reason; a
 * cancelled run stays an error (the run stops, it is not a verdict).
 */
export async function judged<T>(
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T | { notEvaluated: string }> {
  try {
    return await work();
  } catch (error) {
    if (signal?.aborted) throw error;
    return { notEvaluated: error instanceof Error ? error.message : String(error) };
  }
}
