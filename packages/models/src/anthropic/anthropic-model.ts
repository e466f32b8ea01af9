import Anthropic from "@anthropic-ai/sdk";
import { BaseLlm, type GenerateContentOptions, type LlmRequest, type LlmResponse } from "@agentkit/core";
import {
  parseAnthropicModelOptions,
  resolveApiKey,
  resolveBaseUrl,
  type AnthropicModelOptions,
  type ResolvedAnthropicModelOptions,
} from "./anthropic-options.js";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";
import { toProviderError } from "./error-mapping.js";
import { stripProviderPrefix, toAnthropicRequest } from "./request-conversion.js";
import { AnthropicStreamAccumulator, fromAnthropicMessage } from "./response-conversion.js";
import { abortSafeFetch } from "../errors/abort-safe-fetch.js";
import { boundedFetch } from "../errors/bounded-response.js";
import { underCallSignal } from "../call-signal.js";

/**
 * A Claude model over Anthropic's Messages API. Credentials: `apiKey` option, then
 * `ANTHROPIC_API_KEY`; base URL: `baseURL` option, then `ANTHROPIC_BASE_URL`. The client is
 * created on the first call; `close()` drops it.
 */
export class AnthropicModel extends BaseLlm {
  private readonly options: ResolvedAnthropicModelOptions;
  private client: Anthropic | undefined;

  /** It only converts them to new messages (`toAnthropicMessages`) and keeps nothing of them. */
  override get readsContentsOnly(): boolean {
    return true;
  }

  constructor(options: AnthropicModelOptions) {
    const parsed = parseAnthropicModelOptions(options);
    super({ model: stripProviderPrefix(parsed.model) });
    this.options = parsed;
    this.client = parsed.client;
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
    // The configured model, not `request.model`: an agent may name a model this adapter does not serve.
    const params = toAnthropicRequest(request, this.model, this.options);
    const requestOptions = signal ? { signal } : {};
    if (!stream) {
      let message: Anthropic.Messages.Message;
      try {
        message = await client.messages.create({ ...params, stream: false }, requestOptions);
      } catch (error) {
        throw toProviderError(error);
      }
      yield fromAnthropicMessage(message);
      return;
    }
    let events: Awaited<ReturnType<typeof openStream>>;
    try {
      events = await openStream(client, params, requestOptions);
    } catch (error) {
      throw toProviderError(error);
    }
    const accumulator = new AnthropicStreamAccumulator();
    const iterator = events[Symbol.asyncIterator]();
    try {
      while (true) {
        let next: IteratorResult<Anthropic.Messages.RawMessageStreamEvent>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw toProviderError(error);
        }
        if (next.done) break;
        const partial = accumulator.apply(next.value);
        if (partial) yield partial;
      }
      // The SDK ends the iteration quietly on abort; a cut stream must not pass as complete.
      if (!accumulator.finished) throw incompleteStream(signal);
      yield accumulator.complete();
    } finally {
      // The consumer stopped early (or a yield threw): end the HTTP stream.
      if (!accumulator.finished) events.controller.abort();
    }
  }

  /** Drops a client this model created (an injected client stays; its owner manages it). */
  /** Builds the SDK client now (a missing key or a bad option shows at start-up). */
  override async warmUp(): Promise<void> {
    this.getClient();
  }

  override async close(): Promise<void> {
    this.client = this.options.client;
  }

  private getClient(): Anthropic {
    if (this.client) return this.client;
    const clientOptions: ConstructorParameters<typeof Anthropic>[0] = {
      apiKey: resolveApiKey(this.options),
      maxRetries: this.options.maxRetries,
    };
    const baseURL = resolveBaseUrl(this.options);
    if (baseURL) clientOptions.baseURL = baseURL;
    if (this.options.timeoutMs !== undefined) clientOptions.timeout = this.options.timeoutMs;
    // Its timeout is told from a connection error by the abort's name, whatever realm made it;
    // what it reads of a response is bounded.
    clientOptions.fetch = boundedFetch(abortSafeFetch, "anthropic", this.options.maxResponseBytes);
    if (this.options.headers) clientOptions.defaultHeaders = this.options.headers;
    this.client = new Anthropic(clientOptions);
    return this.client;
  }
}

function openStream(
  client: Anthropic,
  params: ReturnType<typeof toAnthropicRequest>,
  requestOptions: { signal?: AbortSignal },
) {
  return client.messages.create({ ...params, stream: true }, requestOptions);
}

function incompleteStream(signal: AbortSignal | undefined): ProviderError {
  if (signal?.aborted) {
    return new ProviderError({
      category: ErrorCategory.CANCELLED,
      provider: "anthropic",
      message: "The Anthropic request was aborted.",
      cause: signal.reason,
    });
  }
  return new ProviderError({
    category: ErrorCategory.NETWORK,
    provider: "anthropic",
    message: "The Anthropic stream ended before message_stop (connection dropped). Retry the request.",
  });
}
