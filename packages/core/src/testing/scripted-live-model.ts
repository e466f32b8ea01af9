import type { Blob, Content } from "../content/content.js";
import { BaseLlm, type BaseLlmConnection, type GenerateContentOptions } from "../models/base-llm.js";
import type { LlmRequest } from "../models/llm-request.js";
import type { LlmResponse } from "../models/llm-response.js";
import { ScriptError } from "./scripted-model.js";

/** What a live connection received from the flow. */
export type LiveInput = { kind: "content"; content: Content } | { kind: "realtime"; blob: Blob };

/** The model's answer to one input: responses in order, or computed from the input. */
export type LiveReply = LlmResponse[] | ((input: LiveInput) => LlmResponse[] | Promise<LlmResponse[]>);

export interface ScriptedLiveModelOptions {
  model?: string;
  /** One reply per content received (`sendContent`, tool responses included), in order, across connections. */
  replies?: LiveReply[];
  /** Also consume a reply for each realtime blob (default false: blobs are only recorded). */
  replyToRealtime?: boolean;
  /** Responses emitted as soon as a connection opens. */
  onConnect?: LlmResponse[];
}

/**
 * A deterministic live (BIDI) model for tests: each content the flow sends is answered with
 * the next scripted reply; every connection records its request, history, inputs and close.
 * An input with no reply left makes `receive()` throw `ScriptError`.
 */
export class ScriptedLiveModel extends BaseLlm {
  readonly connections: ScriptedLiveConnection[] = [];
  private readonly replies: LiveReply[];
  private readonly replyToRealtime: boolean;
  private readonly onConnect: LlmResponse[];

  constructor(options: ScriptedLiveModelOptions = {}) {
    super({ model: options.model ?? "scripted-live-model" });
    this.replies = [...(options.replies ?? [])];
    this.replyToRealtime = options.replyToRealtime ?? false;
    this.onConnect = options.onConnect ?? [];
  }

  /** Appends replies to the script. */
  push(...replies: LiveReply[]): this {
    this.replies.push(...replies);
    return this;
  }

  /** Replies not yet used. */
  get remaining(): number {
    return this.replies.length;
  }

  /** The most recent connection. */
  get lastConnection(): ScriptedLiveConnection | undefined {
    return this.connections[this.connections.length - 1];
  }

  // biome-ignore lint/correctness/useYield: a text run of a live-only model fails on its first pull
  override async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    throw new ScriptError(
      `ScriptedLiveModel "${this.model}" only supports live connections; use ScriptedModel for text runs.`,
    );
  }

  override async connect(request: LlmRequest, options: GenerateContentOptions = {}): Promise<ScriptedLiveConnection> {
    const connection = new ScriptedLiveConnection(
      request,
      (input) => this.nextReply(input),
      this.replyToRealtime,
      options.signal,
    );
    this.connections.push(connection);
    for (const r of this.onConnect) connection.emit(r);
    return connection;
  }

  private async nextReply(input: LiveInput): Promise<LlmResponse[]> {
    const reply = this.replies.shift();
    if (reply === undefined) {
      throw new ScriptError(
        `ScriptedLiveModel "${this.model}" received ${JSON.stringify(input)} but has no reply left.`,
      );
    }
    return typeof reply === "function" ? reply(input) : reply;
  }
}

/** One scripted live session. `receive()` ends after `close()` once the replies already asked for are delivered. */
export class ScriptedLiveConnection implements BaseLlmConnection {
  /** The request the connection was opened with (tools by name). */
  readonly request: Omit<LlmRequest, "toolsDict"> & { toolNames: string[] };
  readonly history: Content[] = [];
  readonly inputs: LiveInput[] = [];
  closeCount = 0;
  private readonly buffer: ({ response: LlmResponse } | { error: unknown })[] = [];
  private wake?: () => void;
  private replying: Promise<void> = Promise.resolve();
  private pendingReplies = 0;

  constructor(
    request: LlmRequest,
    private readonly reply: (input: LiveInput) => Promise<LlmResponse[]>,
    private readonly replyToRealtime: boolean,
    signal?: AbortSignal,
  ) {
    const { toolsDict, config, ...rest } = request;
    const { abortSignal: _ignored, ...plainConfig } = config;
    this.request = { ...structuredClone({ ...rest, config: plainConfig }), toolNames: Object.keys(toolsDict) };
    signal?.addEventListener("abort", () => void this.close(), { once: true });
  }

  get closed(): boolean {
    return this.closeCount > 0;
  }

  /** Contents received through `sendContent`, in order. */
  get contents(): Content[] {
    return this.inputs.flatMap((i) => (i.kind === "content" ? [i.content] : []));
  }

  async sendHistory(history: Content[]): Promise<void> {
    this.assertOpen();
    this.history.push(...structuredClone(history));
  }

  async sendContent(content: Content): Promise<void> {
    this.assertOpen();
    const input: LiveInput = { kind: "content", content: structuredClone(content) };
    this.inputs.push(input);
    this.answer(input);
  }

  async sendRealtime(blob: Blob): Promise<void> {
    this.assertOpen();
    const input: LiveInput = { kind: "realtime", blob: structuredClone(blob) };
    this.inputs.push(input);
    if (this.replyToRealtime) this.answer(input);
  }

  /** Pushes a response to the receiver (as if the model spoke unprompted). */
  emit(response: LlmResponse): void {
    this.buffer.push({ response });
    this.notify();
  }

  async *receive(): AsyncGenerator<LlmResponse, void, void> {
    for (;;) {
      const next = this.buffer.shift();
      if (next) {
        if ("error" in next) throw next.error;
        yield next.response;
        continue;
      }
      if (this.closed && this.pendingReplies === 0) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async close(): Promise<void> {
    this.closeCount += 1;
    this.notify();
  }

  private answer(input: LiveInput): void {
    // Replies keep input order even when computed asynchronously; a reply already asked for
    // is still delivered when the connection closes meanwhile.
    this.pendingReplies += 1;
    this.replying = this.replying.then(async () => {
      try {
        for (const r of await this.reply(input)) this.buffer.push({ response: r });
      } catch (error) {
        this.buffer.push({ error });
      }
      this.pendingReplies -= 1;
      this.notify();
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private assertOpen(): void {
    if (this.closed) throw new ScriptError("ScriptedLiveConnection: send after close.");
  }
}
