import type {
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import {
  BaseLlm,
  ConfigurationError,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { underCallSignal } from "../call-signal.js";
import { CallObserver } from "../framework/call-observer.js";
import { ConversionIssues } from "../framework/conversion-issues.js";
import {
  effectiveSampling,
  parseFrameworkOptions,
  type FrameworkOptions,
  type FrameworkSettings,
} from "../framework/framework-options.js";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";
import { providerName, toProviderError } from "./error-mapping.js";
import { toAiSdkCallOptions, type AiSdkLanguageModel } from "./request-conversion.js";
import { AiSdkStreamAccumulator, fromAiSdkResult } from "./response-conversion.js";

export interface AiSdkModelOptions extends FrameworkOptions {
  /** The wrapped language model, e.g. `createOpenAI({ ... }).chat("gpt-4o")`. */
  model: AiSdkLanguageModel;
  /** agentkit name of the model (default: `<provider>/<modelId>`). */
  name?: string;
}

const ADAPTER = "AiSdkModel";

/**
 * Wraps any Vercel AI SDK language model (specification v3 or v4, from `@ai-sdk/provider`)
 * as an agentkit model: the request becomes the provider's call options (`doGenerate` /
 * `doStream`), the result becomes Gemini-shaped responses. Retries are left to agentkit's
 * retry layer (the provider packages do not retry at this level).
 */
export class AiSdkModel extends BaseLlm {
  readonly languageModel: AiSdkLanguageModel;
  private readonly settings: FrameworkSettings;
  private readonly provider: string;

  constructor(options: AiSdkModelOptions) {
    const model = options?.model as AiSdkLanguageModel | undefined;
    if (!model || typeof model.doGenerate !== "function" || typeof model.doStream !== "function") {
      throw new ConfigurationError(
        "AiSdkModel needs `model`: an AI SDK language model (with doGenerate and doStream), e.g. " +
          'createOpenAI(...).chat("gpt-4o").',
      );
    }
    if (model.specificationVersion !== "v3" && model.specificationVersion !== "v4") {
      throw new ConfigurationError(
        `AiSdkModel supports language models of specification v3 and v4; this one is ` +
          `"${String((model as { specificationVersion?: unknown }).specificationVersion)}". Upgrade the provider ` +
          `package.`,
      );
    }
    const settings = parseFrameworkOptions(ADAPTER, options);
    super({ model: options.name ?? `${model.provider}/${model.modelId}` });
    this.languageModel = model;
    this.settings = settings;
    this.provider = providerName(model.provider);
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream = false,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    // Hand-built requests may omit `config` (createLlmRequest always sets it).
    if (request.config === undefined) request = { ...request, config: {} };
    const observer = new CallObserver(this.settings, ADAPTER, this.model, stream, request);
    const issues = new ConversionIssues(ADAPTER, this.settings.validation);
    observer.setIssues(issues.list);
    yield* observer.observe(() => this.call(request, stream, options, issues));
  }

  private async *call(
    request: LlmRequest,
    stream: boolean,
    options: GenerateContentOptions,
    issues: ConversionIssues,
  ): AsyncGenerator<LlmResponse, void, void> {
    const callOptions = toAiSdkCallOptions(
      request,
      effectiveSampling(this.settings, request.config),
      issues,
      this.languageModel.specificationVersion,
    );
    issues.settle();
    // The caller's signal and the request's own abortSignal both cancel the call.
    yield* underCallSignal(options.signal, request.config.abortSignal, (signal) => {
      if (signal) callOptions.abortSignal = signal;
      return stream ? this.streamCall(callOptions, issues, signal) : this.generateCall(callOptions, issues);
    });
  }

  private async *generateCall(
    callOptions: LanguageModelV4CallOptions,
    issues: ConversionIssues,
  ): AsyncGenerator<LlmResponse, void, void> {
    let result: LanguageModelV4GenerateResult;
    try {
      result = (await this.languageModel.doGenerate(callOptions as never)) as LanguageModelV4GenerateResult;
    } catch (error) {
      throw toProviderError(error, this.provider);
    }
    yield fromAiSdkResult(result, issues);
  }

  private async *streamCall(
    callOptions: LanguageModelV4CallOptions,
    issues: ConversionIssues,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse, void, void> {
    let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>;
    try {
      const result = await this.languageModel.doStream(callOptions as never);
      reader = (result.stream as ReadableStream<LanguageModelV4StreamPart>).getReader();
    } catch (error) {
      throw toProviderError(error, this.provider);
    }
    const accumulator = new AiSdkStreamAccumulator(issues);
    let ended = false;
    try {
      while (true) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (error) {
          throw toProviderError(error, this.provider);
        }
        if (next.done) break;
        if (next.value.type === "error") throw toProviderError(next.value.error, this.provider);
        const partial = accumulator.push(next.value);
        if (partial) yield partial;
      }
      ended = true;
      // A stream cut before its `finish` part must not pass as a complete answer.
      if (!accumulator.finished) throw this.incompleteStream(signal);
      yield accumulator.finish();
    } finally {
      // The consumer stopped early (or the stream failed): release the HTTP stream.
      if (!ended) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }

  private incompleteStream(signal: AbortSignal | undefined): ProviderError {
    if (signal?.aborted) {
      return new ProviderError({
        category: ErrorCategory.CANCELLED,
        provider: this.provider,
        message: `The ${this.provider} call was cancelled.`,
        cause: signal.reason,
      });
    }
    return new ProviderError({
      category: ErrorCategory.NETWORK,
      provider: this.provider,
      message: `The ${this.provider} stream ended before its finish part (connection dropped). The call can be retried.`,
    });
  }
}
