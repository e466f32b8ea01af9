import OpenAI from "openai";
import {
  BaseLlm,
  ConfigurationError,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { toProviderError } from "./error-mapping.js";
import {
  openAIModelOptionsSchema,
  type OpenAIModelOptions,
  type ResolvedOpenAIModelOptions,
} from "./openai-options.js";
import { toChatCompletionParams, toOpenAIModelName } from "./request-conversion.js";
import { ChatCompletionStreamAccumulator, fromChatCompletion } from "./response-conversion.js";
import { toResponsesParams } from "./responses-request-conversion.js";
import { fromResponsesResult, ResponsesStreamAccumulator } from "./responses-response-conversion.js";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";
import { abortSafeFetch } from "../errors/abort-safe-fetch.js";
import { boundedFetch } from "../errors/bounded-response.js";
import { underCallSignal } from "../call-signal.js";

/**
 * An OpenAI model over the Chat Completions API (default) or, with `api: "responses"`, the
 * Responses API (stateless). Also serves OpenAI-compatible endpoints through `baseURL` /
 * `OPENAI_BASE_URL`. The client is created on the first call; SDK failures surface as
 * `ProviderError`s (SDK retries are off by default: agentkit's retry layer owns them).
 */
export class OpenAIModel extends BaseLlm {
  private readonly options: ResolvedOpenAIModelOptions;
  private client: OpenAI | undefined;

  /** It only converts them to new messages or input items and keeps nothing of them. */
  override get readsContentsOnly(): boolean {
    return true;
  }

  constructor(options: OpenAIModelOptions) {
    const parsed = openAIModelOptionsSchema.safeParse(options);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid OpenAIModel options: ${issues}.`, { cause: parsed.error });
    }
    super({ model: toOpenAIModelName(parsed.data.model) });
    this.options = parsed.data;
    this.client = parsed.data.client;
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream = false,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    // The caller's signal and the request's own abortSignal both cancel the call.
    yield* underCallSignal(options.signal, request.config.abortSignal, (signal) =>
      this.generate(request, stream, signal),
    );
  }

  private async *generate(
    request: LlmRequest,
    stream: boolean,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse, void, void> {
    const client = this.getClient();
    const requestOptions = signal ? { signal } : {};
    if (this.options.api === "responses") {
      yield* this.generateWithResponses(client, request, stream, requestOptions);
      return;
    }
    const params = toChatCompletionParams(request, this.model);
    try {
      if (!stream) {
        const completion = await client.chat.completions.create({ ...params, stream: false }, requestOptions);
        yield fromChatCompletion(completion);
        return;
      }
      const chunks = await client.chat.completions.create(
        { ...params, stream: true, stream_options: { include_usage: true } },
        requestOptions,
      );
      const accumulator = new ChatCompletionStreamAccumulator();
      for await (const chunk of chunks) {
        const partial = accumulator.push(chunk);
        if (partial) yield partial;
      }
      if (!accumulator.finished) throw incompleteStream(signal);
      yield accumulator.finish();
    } catch (error) {
      throw toProviderError(error);
    }
  }

  private async *generateWithResponses(
    client: OpenAI,
    request: LlmRequest,
    stream: boolean,
    requestOptions: { signal?: AbortSignal },
  ): AsyncGenerator<LlmResponse, void, void> {
    const params = toResponsesParams(request, this.model);
    try {
      if (!stream) {
        yield fromResponsesResult(await client.responses.create({ ...params, stream: false }, requestOptions));
        return;
      }
      const events = await client.responses.create({ ...params, stream: true }, requestOptions);
      const accumulator = new ResponsesStreamAccumulator();
      for await (const event of events) {
        const partial = accumulator.push(event);
        if (partial) yield partial;
      }
      const final = accumulator.finish();
      if (!final) {
        throw new ProviderError({
          category: ErrorCategory.SERVER_ERROR,
          provider: "openai",
          message: "The openai Responses stream ended without a completed response. The call can be retried.",
        });
      }
      yield final;
    } catch (error) {
      throw toProviderError(error);
    }
  }

  /** Drops a client this model created (an injected client stays; its owner closes it). */
  /** Builds the SDK client now (a missing key or a bad option shows at start-up). */
  override async warmUp(): Promise<void> {
    this.getClient();
  }

  override async close(): Promise<void> {
    this.client = this.options.client;
  }

  private getClient(): OpenAI {
    if (this.client) return this.client;
    const apiKey = this.options.apiKey ?? nonEmpty(process.env.OPENAI_API_KEY);
    if (!apiKey) {
      throw new ConfigurationError(
        "No OpenAI API key: pass the apiKey option to OpenAIModel or set the OPENAI_API_KEY environment variable.",
      );
    }
    const clientOptions: ConstructorParameters<typeof OpenAI>[0] = { apiKey, maxRetries: this.options.maxRetries };
    const baseURL = this.options.baseURL ?? nonEmpty(process.env.OPENAI_BASE_URL);
    if (baseURL) clientOptions.baseURL = baseURL;
    if (this.options.organization) clientOptions.organization = this.options.organization;
    if (this.options.timeoutMs !== undefined) clientOptions.timeout = this.options.timeoutMs;
    // Its timeout is told from a connection error by the abort's name, whatever realm made it;
    // what it reads of a response is bounded.
    clientOptions.fetch = boundedFetch(abortSafeFetch, "openai", this.options.maxResponseBytes);
    if (this.options.headers) clientOptions.defaultHeaders = this.options.headers;
    this.client = new OpenAI(clientOptions);
    return this.client;
  }
}

/** A chat stream that ended before any choice's finish_reason: cancelled, or cut off (retryable). */
function incompleteStream(signal: AbortSignal | undefined): ProviderError {
  if (signal?.aborted) {
    return new ProviderError({
      category: ErrorCategory.CANCELLED,
      provider: "openai",
      message: "The openai call was cancelled.",
      cause: signal.reason,
    });
  }
  return new ProviderError({
    category: ErrorCategory.NETWORK,
    provider: "openai",
    message:
      "The openai stream ended without a finish_reason (connection dropped or the server stopped early). The call " +
      "can be retried.",
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.length > 0 ? value : undefined;
}
