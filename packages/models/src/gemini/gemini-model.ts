import {
  GoogleGenAI,
  type GenerateContentParameters,
  type GenerateContentResponse,
  type GoogleGenAIOptions,
} from "@google/genai";
import {
  BaseLlm,
  type BaseLlmConnection,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";
import { retryStream } from "@agentkit/core/internal";
import { providerRetryOptions, resolveRetryPolicy, type RetryPolicy } from "../retry/retry-policy.js";
import { callSignal, underCallSignal } from "../call-signal.js";
import { DEFAULT_CACHE_DELETE_TIMEOUT_MS, GeminiContextCache, type PreparedRequest } from "./context-cache.js";
import { isMissingCache, toProviderError, type FailedResponseFacts } from "./error-mapping.js";
import { createGeminiFetch } from "./gemini-fetch.js";
import {
  parseGeminiOptions,
  resolveBackend,
  type GeminiBackend,
  type GeminiOptions,
  type ResolvedGeminiOptions,
} from "./gemini-options.js";
import { GeminiLiveConnection } from "./gemini-live-connection.js";
import { stripModelPrefix, toGeminiRequest } from "./request-conversion.js";
import { fromGeminiResponse, GeminiStreamAccumulator } from "./response-conversion.js";

/** API version of the Gemini API (not Vertex AI) unless the `apiVersion` option says otherwise. */
export const DEFAULT_GEMINI_API_VERSION = "v1beta";

/**
 * A Gemini model over `@google/genai`: the Gemini API (API key) or Vertex AI (project,
 * location, Google credentials). Streaming and not, function calling, thought signatures,
 * native tools, context caching (`request.cacheConfig`) and live sessions (`connect`). The
 * client is created on first use (settings resolved then); `close()` drops it and deletes the
 * context caches this model created.
 */
export class Gemini extends BaseLlm {
  private readonly options: ResolvedGeminiOptions;
  private readonly retryPolicy: RetryPolicy;
  private readonly env: Record<string, string | undefined> | undefined;
  private client: GoogleGenAI | undefined;
  private backend: GeminiBackend | undefined;
  private readonly cache: GeminiContextCache;
  private readonly connections = new Set<GeminiLiveConnection>();

  /** `env` replaces `process.env` for the settings' fallbacks (tests, embedding). */
  /** It only converts them to new Gemini contents (`toGeminiContents`) and keeps nothing of them. */
  override get readsContentsOnly(): boolean {
    return true;
  }

  constructor(options: GeminiOptions, env?: Record<string, string | undefined>) {
    const parsed = parseGeminiOptions(options);
    super({ model: stripModelPrefix(parsed.model) });
    this.options = parsed;
    this.env = env;
    this.retryPolicy = resolveRetryPolicy({ maxAttempts: 1, ...parsed.retry });
    this.cache = new GeminiContextCache(
      () => this.getClient(),
      Date.now,
      Math.min(parsed.timeoutMs ?? DEFAULT_CACHE_DELETE_TIMEOUT_MS, DEFAULT_CACHE_DELETE_TIMEOUT_MS),
    );
  }

  /** Whether requests go to Vertex AI (resolves the settings; throws `ConfigurationError` when incomplete). */
  get vertexai(): boolean {
    return this.getBackend().kind !== "gemini-api";
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream = false,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    // The caller's signal and the request's own abortSignal both cancel the call.
    yield* underCallSignal(options.signal, request.config.abortSignal, (signal) =>
      // After output was yielded a retry would repeat it; only a clean failure is retried.
      retryStream(
        () => this.generateOnce(request, stream, signal),
        providerRetryOptions("gemini", { policy: this.retryPolicy, ...(signal ? { signal } : {}) }),
      ),
    );
  }

  override async connect(request: LlmRequest, options: GenerateContentOptions = {}): Promise<BaseLlmConnection> {
    // As for a call: the caller's signal and the request's own abortSignal both give up the
    // opening and close the session. Released when the session closes (or fails to open).
    const call = callSignal(options.signal, request.config.abortSignal);
    let connection: GeminiLiveConnection;
    try {
      connection = await GeminiLiveConnection.open(this.getClient(), this.model, request, {
        vertex: this.vertexai,
        ...(call.signal ? { signal: call.signal } : {}),
        ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
        onClose: (c) => {
          this.connections.delete(c);
          call.release();
        },
      });
    } catch (error) {
      call.release();
      throw error;
    }
    this.connections.add(connection);
    return connection;
  }

  /** Builds the SDK client now (a missing key or a bad option shows at start-up). */
  override async warmUp(): Promise<void> {
    this.getClient();
  }

  /** Closes live sessions, deletes the context caches this model created, drops the client. */
  override async close(): Promise<void> {
    await Promise.all([...this.connections].map((c) => c.close()));
    if (this.client) await this.cache.close();
    this.client = undefined;
  }

  private async *generateOnce(
    request: LlmRequest,
    stream: boolean,
    callerSignal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse, void, void> {
    const client = this.getClient();
    const call = new CallControl(callerSignal, this.options.timeoutMs);
    try {
      const base = toGeminiRequest(request, this.model, { vertex: this.vertexai });
      let prepared = await this.prepareCache(request, base, call);
      const finish = (response: LlmResponse): LlmResponse => {
        if (prepared.metadata)
          response.cacheMetadata = { ...this.cache.finish(base, prepared.metadata, response.usageMetadata) };
        return response;
      };
      /** Sends the request; a cache that vanished on the service (deleted, evicted) is replaced once. */
      const send = async <T>(invoke: (params: GenerateContentParameters) => Promise<T>): Promise<T> => {
        for (let recovered = false; ; recovered = true) {
          const facts: FailedResponseFacts = {};
          try {
            const fetch = createGeminiFetch({ facts, maxResponseBytes: this.options.maxResponseBytes });
            return await invoke(withCallOptions(prepared.params, call.signal, fetch, request.config.httpOptions));
          } catch (error) {
            const cacheName = prepared.params.config?.cachedContent;
            if (!recovered && cacheName && isMissingCache(error)) {
              this.cache.forget(cacheName);
              prepared = await this.prepareCache(request, base, call, true);
              continue;
            }
            throw call.explain(toProviderError(error, facts));
          }
        }
      };

      if (!stream) {
        const response = await send((params) => client.models.generateContent(params));
        yield finish(fromGeminiResponse(response));
        return;
      }

      const chunks = await send((params) => client.models.generateContentStream(params));
      const accumulator = new GeminiStreamAccumulator();
      const iterator = chunks[Symbol.asyncIterator]();
      while (true) {
        let next: IteratorResult<GenerateContentResponse>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw call.explain(toProviderError(error));
        }
        if (next.done) break;
        for (const partial of accumulator.apply(next.value)) yield partial;
      }
      if (!accumulator.finished) throw call.explain(incompleteStream());
      yield finish(accumulator.complete());
    } finally {
      // Ends the HTTP request when the consumer stopped early, and the timeout timer.
      call.dispose();
    }
  }

  private async prepareCache(
    request: LlmRequest,
    base: GenerateContentParameters,
    call: CallControl,
    ignorePrior = false,
  ): Promise<PreparedRequest> {
    try {
      return await this.cache.prepare(request, base, call.signal, ignorePrior);
    } catch (error) {
      throw call.explain(error);
    }
  }

  private getBackend(): GeminiBackend {
    this.backend ??= resolveBackend(this.options, this.env ?? process.env);
    return this.backend;
  }

  private getClient(): GoogleGenAI {
    if (this.client) return this.client;
    const backend = this.getBackend();
    const httpOptions: NonNullable<GoogleGenAIOptions["httpOptions"]> = {
      fetch: createGeminiFetch({ maxResponseBytes: this.options.maxResponseBytes }),
    };
    if (backend.baseUrl) httpOptions.baseUrl = backend.baseUrl;
    if (this.options.headers) httpOptions.headers = { ...this.options.headers };
    // The Gemini API's full surface (context caches, the Live API, thought signatures) is on v1beta.
    const apiVersion =
      this.options.apiVersion ?? (backend.kind === "gemini-api" ? DEFAULT_GEMINI_API_VERSION : undefined);
    if (apiVersion) httpOptions.apiVersion = apiVersion;
    const common = { httpOptions, ...(apiVersion ? { apiVersion } : {}) };
    switch (backend.kind) {
      case "gemini-api":
        this.client = new GoogleGenAI({ ...common, apiKey: backend.apiKey, vertexai: false });
        break;
      case "vertex-express":
        this.client = new GoogleGenAI({ ...common, apiKey: backend.apiKey, vertexai: true });
        break;
      case "vertex":
        this.client = new GoogleGenAI({
          ...common,
          vertexai: true,
          project: backend.project,
          location: backend.location,
          ...(backend.googleAuthOptions
            ? { googleAuthOptions: backend.googleAuthOptions as GoogleGenAIOptions["googleAuthOptions"] }
            : {}),
        });
        break;
    }
    return this.client;
  }
}

/**
 * One call's abort signal: the caller's signal and the model's timeout combined, so a timeout
 * can be told apart from a cancellation (the SDK reports both as an AbortError).
 */
class CallControl {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;
  private readonly onAbort = () => this.controller.abort(this.caller?.reason);

  constructor(
    private readonly caller: AbortSignal | undefined,
    private readonly timeoutMs: number | undefined,
  ) {
    if (caller?.aborted) this.controller.abort(caller.reason);
    else caller?.addEventListener("abort", this.onAbort, { once: true });
    if (timeoutMs !== undefined) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.controller.abort();
      }, timeoutMs);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Rewrites an abort caused by the timeout or the caller into the matching ProviderError. */
  explain(error: unknown): unknown {
    if (this.timedOut) {
      return new ProviderError({
        category: ErrorCategory.TIMEOUT,
        provider: "gemini",
        message:
          `The Gemini call timed out after ${this.timeoutMs} ms. It is retried; raise the timeoutMs option if ` +
          `it keeps happening.`,
        cause: error,
      });
    }
    if (this.caller?.aborted) {
      return new ProviderError({
        category: ErrorCategory.CANCELLED,
        provider: "gemini",
        message: "The Gemini call was cancelled.",
        cause: error,
      });
    }
    return error;
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.caller?.removeEventListener("abort", this.onAbort);
    if (!this.controller.signal.aborted) this.controller.abort();
  }
}

/** Adds the call's signal and its fetch (which notes the `Retry-After` header of a failed response). */
function withCallOptions(
  params: GenerateContentParameters,
  signal: AbortSignal,
  fetch: typeof globalThis.fetch,
  httpOptions: Record<string, unknown> | undefined,
): GenerateContentParameters {
  return { ...params, config: { ...params.config, abortSignal: signal, httpOptions: { ...httpOptions, fetch } } };
}

function incompleteStream(): ProviderError {
  return new ProviderError({
    category: ErrorCategory.NETWORK,
    provider: "gemini",
    message: "The Gemini stream ended before a finish reason (connection dropped). Retry the request.",
  });
}
