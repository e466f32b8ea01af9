import {
  BaseLlm,
  type BaseLlmConnection,
  ConfigurationError,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { z } from "zod";

/** Options of `ProxyModel`: a model reached through an API gateway or proxy. */
export const proxyModelOptionsSchema = z.object({
  model: z.string().min(1),
  /** The gateway's base URL (required: a proxy model without one is a configuration error). */
  baseURL: z.string().min(1),
  /** Headers sent on every request, e.g. gateway authentication. */
  headers: z.record(z.string(), z.string()).optional(),
  /** API key passed to the vendor SDK; defaults to "proxy" so SDKs do not refuse to start. */
  apiKey: z.string().min(1).default("proxy"),
  /** Which vendor wire protocol the gateway speaks. */
  wireFormat: z.enum(["openai", "anthropic", "gemini"]).default("openai"),
  timeoutMs: z.number().int().positive().optional(),
  /** Bytes a response may hold (a JSON answer whole, a stream per event); the adapter's default when unset. */
  maxResponseBytes: z.number().int().positive().optional(),
});

export type ProxyModelOptions = z.input<typeof proxyModelOptionsSchema>;
type ResolvedProxyModelOptions = z.output<typeof proxyModelOptionsSchema>;

/**
 * A proxy-fronted model: delegates to the adapter of its wire format, configured with the
 * gateway's base URL and headers. The adapter (and its SDK) is imported on first use.
 */
export class ProxyModel extends BaseLlm {
  private readonly options: ResolvedProxyModelOptions;
  private delegate: Promise<BaseLlm> | undefined;

  constructor(options: ProxyModelOptions) {
    const parsed = proxyModelOptionsSchema.safeParse(options);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid ProxyModel options (set model and baseURL): ${issues}.`, {
        cause: parsed.error,
      });
    }
    super({ model: parsed.data.model });
    this.options = parsed.data;
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    options?: GenerateContentOptions,
  ): AsyncGenerator<LlmResponse, void, void> {
    const model = await this.getDelegate();
    yield* model.generateContentAsync(request, stream, options);
  }

  /** Live sessions go to the delegate (the gemini wire format supports them). */
  override async connect(request: LlmRequest, options?: GenerateContentOptions): Promise<BaseLlmConnection> {
    return (await this.getDelegate()).connect(request, options);
  }

  /** Closes the delegate if one was built; a failed load is not cached. */
  override async close(): Promise<void> {
    const pending = this.delegate;
    this.delegate = undefined;
    const model = await pending?.catch(() => undefined);
    await model?.close();
  }

  private getDelegate(): Promise<BaseLlm> {
    this.delegate ??= this.load().catch((error: unknown) => {
      this.delegate = undefined;
      throw error;
    });
    return this.delegate;
  }

  private async load(): Promise<BaseLlm> {
    const { model, baseURL, headers, apiKey, timeoutMs, maxResponseBytes, wireFormat } = this.options;
    const limits = { ...(timeoutMs ? { timeoutMs } : {}), ...(maxResponseBytes ? { maxResponseBytes } : {}) };
    const common = { model, baseURL, apiKey, ...(headers ? { headers } : {}), ...limits };
    switch (wireFormat) {
      case "openai": {
        const { OpenAIModel } = await import("../openai/index.js");
        return new OpenAIModel(common);
      }
      case "anthropic": {
        const { AnthropicModel } = await import("../anthropic/index.js");
        return new AnthropicModel(common);
      }
      case "gemini": {
        const { Gemini } = await import("../gemini/index.js");
        // The gateway speaks the Gemini API's REST protocol (API key header, /v1beta/models/…).
        return new Gemini({
          model,
          baseUrl: baseURL,
          apiKey,
          vertexai: false,
          ...(headers ? { headers } : {}),
          ...limits,
        });
      }
    }
  }
}
