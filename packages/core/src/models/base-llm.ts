import type { Blob, Content } from "../content/content.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { LlmRequest } from "./llm-request.js";
import type { LlmResponse } from "./llm-response.js";

/** An open live (BIDI) model session. */
export interface BaseLlmConnection {
  /** Sends the conversation so far (before realtime input starts). */
  sendHistory(history: Content[]): Promise<void>;
  /** Sends a user or tool-response content. */
  sendContent(content: Content): Promise<void>;
  /** Streams realtime input (audio/video chunks). */
  sendRealtime(blob: Blob): Promise<void>;
  /** Model output until the connection closes. */
  receive(): AsyncGenerator<LlmResponse, void, void>;
  close(): Promise<void>;
}

export interface BaseLlmOptions {
  /** The model name (e.g. `gemini-2.5-flash`). */
  model: string;
}

/** Per-call options of `generateContentAsync`. */
export interface GenerateContentOptions {
  signal?: AbortSignal;
}

/**
 * A model. Subclasses implement `generateContentAsync` (and `connect` for live models);
 * adapters live in `@agentkit/models`, test doubles in `@agentkit/core/testing`.
 */
export abstract class BaseLlm {
  readonly model: string;

  /**
   * True when `generateContentAsync` only reads `request.contents` and the function declarations
   * of `request.config.tools` while it runs: it never edits the contents array nor keeps it after
   * the call, and never edits a declaration (they may be frozen). The flow then hands it the
   * history array it shares between the requests of a session instead of a copy (a long session
   * saves a history-sized copy per call), and the declarations it shares between requests.
   * Default false: the model gets copies of its own.
   */
  get readsContentsOnly(): boolean {
    return false;
  }

  constructor({ model }: BaseLlmOptions) {
    this.model = model;
  }

  /**
   * Yields the model's response. With `stream` true, yields `partial` chunks followed by the
   * complete response; otherwise one complete response.
   */
  abstract generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    options?: GenerateContentOptions,
  ): AsyncGenerator<LlmResponse, void, void>;

  /** Opens a live connection. Models without live support throw. */
  async connect(_request: LlmRequest, _options?: GenerateContentOptions): Promise<BaseLlmConnection> {
    throw new ConfigurationError(`Model ${this.model} does not support live (BIDI) connections.`);
  }

  /**
   * Loads what the first call would load (adapter module, vendor SDK, clients) without calling
   * the provider, so a server's first request does not pay for it. Default: nothing to load.
   */
  async warmUp(): Promise<void> {}

  /** Releases clients the model holds. */
  async close(): Promise<void> {}
}
