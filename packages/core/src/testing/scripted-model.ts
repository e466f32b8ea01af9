import { AgentKitError } from "../errors/agentkit-error.js";
import { BaseLlm, type GenerateContentOptions } from "../models/base-llm.js";
import type { LlmRequest } from "../models/llm-request.js";
import type { LlmResponse } from "../models/llm-response.js";

/** One scripted model turn. */
export type ScriptStep =
  /** One complete response. */
  | LlmResponse
  /** Text streamed in chunks: partial events when streaming, then the complete text. */
  | { chunks: string[]; final?: Omit<LlmResponse, "partial"> }
  /** Exactly these responses, in order (for full control over a stream). */
  | { stream: LlmResponse[] }
  /** The call fails with this error. */
  | { error: unknown }
  /** Computed from the request. */
  | ((request: LlmRequest) => LlmResponse | Promise<LlmResponse>);

/** A step whose `expect` checks the request before the step answers. */
export interface CheckedStep {
  step: ScriptStep;
  expect: (request: LlmRequest) => void;
}

export interface ScriptedModelOptions {
  model?: string;
  steps?: (ScriptStep | CheckedStep)[];
  /** Wait this long before each response (to test cancellation and concurrency). */
  delayMs?: number;
}

/** The script ran out, or a step was left unused. */
export class ScriptError extends AgentKitError {
  constructor(message: string) {
    super("SCRIPT_ERROR", message);
  }
}

/** The recorded view of a request (tools by name instead of instances). */
export type RecordedRequest = Omit<LlmRequest, "toolsDict"> & { toolNames: string[] };

/**
 * A deterministic model for tests and examples. It answers each call with the next
 * scripted step, records every request, and fails loudly on an unexpected call
 * (`ScriptError`) or, through `assertConsumed()`, on steps left over.
 */
export class ScriptedModel extends BaseLlm {
  readonly requests: RecordedRequest[] = [];
  private readonly steps: (ScriptStep | CheckedStep)[];
  private readonly delayMs: number;

  constructor(options: ScriptedModelOptions = {}) {
    super({ model: options.model ?? "scripted-model" });
    this.steps = [...(options.steps ?? [])];
    this.delayMs = options.delayMs ?? 0;
  }

  /** A model response with text. */
  static text(text: string, extra: Partial<LlmResponse> = {}): LlmResponse {
    return { content: { role: "model", parts: [{ text }] }, ...extra };
  }

  /** A model response calling one function. */
  static functionCall(name: string, args: Record<string, unknown> = {}, id?: string): LlmResponse {
    return { content: { role: "model", parts: [{ functionCall: { name, args, ...(id ? { id } : {}) } }] } };
  }

  /** A model response calling several functions in one turn. */
  static functionCalls(calls: { name: string; args?: Record<string, unknown>; id?: string }[]): LlmResponse {
    return {
      content: {
        role: "model",
        parts: calls.map((c) => ({
          functionCall: { name: c.name, args: c.args ?? {}, ...(c.id ? { id: c.id } : {}) },
        })),
      },
    };
  }

  /** Appends steps to the script. */
  push(...steps: (ScriptStep | CheckedStep)[]): this {
    this.steps.push(...steps);
    return this;
  }

  /** Steps not yet used. */
  get remaining(): number {
    return this.steps.length;
  }

  /** Throws when scripted steps were not used. */
  assertConsumed(): void {
    if (this.steps.length > 0)
      throw new ScriptError(`${this.steps.length} scripted step(s) were never requested by the agent.`);
  }

  async *generateContentAsync(
    request: LlmRequest,
    stream = false,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    this.requests.push(recordRequest(request));
    const next = this.steps.shift();
    if (next === undefined) {
      const last = request.contents[request.contents.length - 1];
      throw new ScriptError(
        `ScriptedModel "${this.model}" got call #${this.requests.length} but its script is empty. Last ` +
          `content: ${JSON.stringify(last)}`,
      );
    }
    if (isChecked(next)) next.expect(request);
    const step = isChecked(next) ? next.step : next;
    if (this.delayMs > 0) await delay(this.delayMs, options.signal ?? request.config.abortSignal);
    if (typeof step === "function") {
      yield await step(request);
    } else if ("error" in step && Object.keys(step).length === 1) {
      throw (step as { error: unknown }).error;
    } else if ("chunks" in step && Array.isArray(step.chunks)) {
      const text = step.chunks.join("");
      if (stream)
        for (const chunk of step.chunks) yield { content: { role: "model", parts: [{ text: chunk }] }, partial: true };
      yield { content: { role: "model", parts: [{ text }] }, ...step.final };
    } else if ("stream" in step && Array.isArray(step.stream)) {
      for (const r of step.stream) yield r;
    } else {
      yield step as LlmResponse;
    }
  }
}

function isChecked(step: ScriptStep | CheckedStep): step is CheckedStep {
  return typeof step === "object" && step !== null && "expect" in step && "step" in step;
}

function recordRequest(request: LlmRequest): RecordedRequest {
  const { toolsDict, config, ...rest } = request;
  const { abortSignal: _signal, ...plainConfig } = config;
  return { ...structuredClone({ ...rest, config: plainConfig }), toolNames: Object.keys(toolsDict) };
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
