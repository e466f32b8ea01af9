import type { LlmRequest, LlmResponse } from "@agentkit/core";
import type { ConversionIssue } from "./message-conversion-error.js";
import type { FrameworkSettings } from "./framework-options.js";

/** One model call as the observability hook sees it. */
export interface FrameworkCallMetrics {
  /** "LangChainModel" or "AiSdkModel". */
  adapter: string;
  /** The wrapped model's name. */
  model: string;
  stream: boolean;
  outcome: "success" | "error";
  /** Wall-clock time from the call to its last response (absent when `metricsEnabled` is false). */
  latencyMs?: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  finishReason?: string;
  /** `code` and message of the error the call failed with. */
  error?: { code: string; message: string };
  /** Parts the conversion left out (validation disabled). */
  conversionIssues?: ConversionIssue[];
  /** The request contents and system instruction; only with `includeContent`. */
  request?: { contents: LlmRequest["contents"]; systemInstruction?: unknown };
  /** The final response content; only with `includeContent`. */
  response?: LlmResponse["content"];
}

/** Times one call and hands a record to the `onMetrics` hook (or `console.debug`) when it ends. */
export class CallObserver {
  private readonly started = performance.now();
  private final: LlmResponse | undefined;
  private issues: ConversionIssue[] = [];
  private done = false;

  constructor(
    private readonly settings: FrameworkSettings,
    private readonly adapter: string,
    private readonly model: string,
    private readonly stream: boolean,
    private readonly request: LlmRequest,
  ) {}

  get enabled(): boolean {
    return this.settings.observability.enabled;
  }

  setIssues(issues: ConversionIssue[]): void {
    this.issues = issues;
  }

  /** Remembers the complete (non-partial) response. */
  saw(response: LlmResponse): void {
    if (!response.partial) this.final = response;
  }

  /**
   * Yields the call's responses, noting each, and records how the call ended: failed with its
   * error, or succeeded (also when the consumer stops early). Errors thrown while converting
   * the request inside `call` count as failures too.
   */
  async *observe(call: () => AsyncGenerator<LlmResponse, void, void>): AsyncGenerator<LlmResponse, void, void> {
    try {
      for await (const response of call()) {
        this.saw(response);
        yield response;
      }
      this.succeeded();
    } catch (error) {
      this.failed(error);
      throw error;
    } finally {
      // Consumer stopped early: still report the call.
      this.succeeded();
    }
  }

  succeeded(): void {
    this.emit(undefined);
  }

  failed(error: unknown): void {
    this.emit(error);
  }

  private emit(error: unknown): void {
    if (this.done || !this.enabled) return;
    this.done = true;
    const { metricsEnabled, includeContent } = this.settings.observability;
    const record: FrameworkCallMetrics = {
      adapter: this.adapter,
      model: this.model,
      stream: this.stream,
      outcome: error === undefined ? "success" : "error",
    };
    if (metricsEnabled) {
      record.latencyMs = Math.round((performance.now() - this.started) * 1000) / 1000;
      const usage = this.final?.usageMetadata;
      if (usage?.promptTokenCount !== undefined) record.inputTokens = usage.promptTokenCount;
      if (usage?.candidatesTokenCount !== undefined) record.outputTokens = usage.candidatesTokenCount;
      if (usage?.totalTokenCount !== undefined) record.totalTokens = usage.totalTokenCount;
    }
    if (this.final?.finishReason !== undefined) record.finishReason = this.final.finishReason;
    if (error !== undefined) {
      const e = error as { code?: unknown; message?: unknown };
      record.error = {
        code: typeof e.code === "string" ? e.code : "UNKNOWN",
        message: typeof e.message === "string" ? e.message : String(error),
      };
    }
    if (this.issues.length > 0) record.conversionIssues = this.issues;
    if (includeContent) {
      record.request = { contents: this.request.contents };
      if (this.request.config.systemInstruction !== undefined)
        record.request.systemInstruction = this.request.config.systemInstruction;
      if (this.final?.content !== undefined) record.response = this.final.content;
    }
    const sink =
      this.settings.onMetrics ??
      ((m: FrameworkCallMetrics) => console.debug(`[agentkit:${m.adapter}]`, JSON.stringify(m)));
    try {
      sink(record);
    } catch {
      // A failing observer must not fail the model call.
    }
  }
}
