import type {
  FunctionResponse as GenaiFunctionResponse,
  GoogleGenAI,
  Live,
  LiveConnectConfig,
  LiveConnectParameters,
  LiveServerMessage,
  Session,
} from "@google/genai";
import {
  AgentKitError,
  type Blob,
  type BaseLlmConnection,
  type Content,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";
import { toProviderError } from "./error-mapping.js";
import { stripModelPrefix, toGeminiContents } from "./request-conversion.js";
import { toUsageMetadata } from "./response-conversion.js";

/** Request config fields a live session takes (the rest of the config is text-mode only). */
const LIVE_CONFIG_KEYS = [
  "systemInstruction",
  "tools",
  "temperature",
  "topP",
  "topK",
  "maxOutputTokens",
  "seed",
  "speechConfig",
  "thinkingConfig",
  "responseModalities",
  "mediaResolution",
];

/** How long opening a live session (the socket and the service's `setupComplete`) may take without `timeoutMs`. */
const DEFAULT_LIVE_CONNECT_TIMEOUT_MS = 30_000;

export interface LiveOpenOptions {
  vertex: boolean;
  signal?: AbortSignal;
  /** Bound of opening the session (default `DEFAULT_LIVE_CONNECT_TIMEOUT_MS`). */
  timeoutMs?: number;
  onClose?: (connection: GeminiLiveConnection) => void;
}

type QueueItem = { response: LlmResponse } | { error: unknown } | { end: true };

/** The session settings: the request's model config, then `liveConnectConfig` over it. */
export function toLiveConnectConfig(request: LlmRequest): LiveConnectConfig {
  const out: Record<string, unknown> = {};
  for (const key of LIVE_CONFIG_KEYS) if (request.config[key] !== undefined) out[key] = request.config[key];
  for (const [key, value] of Object.entries(request.liveConnectConfig ?? {})) if (value !== undefined) out[key] = value;
  return out as LiveConnectConfig;
}

/**
 * A live (BIDI) session over the Gemini Live API WebSocket. Sends history and contents as
 * `clientContent`, tool responses as `toolResponse`, audio / video blobs as `realtimeInput`.
 * `receive()` yields model text as partial responses and, at the end of a turn (or before a
 * tool call or an interruption), the turn's whole text as one response; audio parts,
 * transcriptions, tool calls, `interrupted`, `turnComplete`, usage and session-resumption
 * updates as they come. It ends on `close()` or when the socket closes; an abnormal close by
 * the service is thrown as a `ProviderError`.
 */
export class GeminiLiveConnection implements BaseLlmConnection {
  private readonly queue: QueueItem[] = [];
  private wake: (() => void) | undefined;
  private session: Session | undefined;
  private closing = false;
  private ended = false;
  private text = "";
  private thoughtText = "";
  /** Stops closing on the caller's abort: the signal may outlive this connection (a live run transfers). */
  private stopFollowing: (() => void) | undefined;

  private constructor(private readonly options: LiveOpenOptions) {}

  static async open(
    client: GoogleGenAI,
    model: string,
    request: LlmRequest,
    options: LiveOpenOptions,
  ): Promise<GeminiLiveConnection> {
    if (options.signal?.aborted) throw cancelledBeforeOpen(options.signal.reason);
    const connection = new GeminiLiveConnection(options);
    try {
      connection.session = await connectWithin(
        client,
        {
          model: stripModelPrefix(model),
          config: toLiveConnectConfig(request),
          callbacks: {
            onmessage: (message) => connection.onMessage(message),
            onerror: (event) =>
              connection.push({
                error: liveError(`the Live API socket failed: ${event?.message ?? "WebSocket error"}`, event?.error),
              }),
            onclose: (event) => connection.onSocketClose(event?.code, event?.reason),
          },
        },
        options.signal,
        options.timeoutMs ?? DEFAULT_LIVE_CONNECT_TIMEOUT_MS,
      );
    } catch (error) {
      throw error instanceof AgentKitError
        ? error
        : liveError(error instanceof Error ? error.message : String(error), error);
    }
    const signal = options.signal;
    if (signal) {
      const onAbort = () => void connection.close();
      signal.addEventListener("abort", onAbort, { once: true });
      connection.stopFollowing = () => signal.removeEventListener("abort", onAbort);
    }
    return connection;
  }

  async sendHistory(history: Content[]): Promise<void> {
    const turns = toGeminiContents(history, { vertex: this.options.vertex });
    if (turns.length === 0) return;
    // The model answers right away only when the history ends with the user's turn.
    this.open().sendClientContent({ turns, turnComplete: turns.at(-1)?.role === "user" });
  }

  async sendContent(content: Content): Promise<void> {
    const responses = (content.parts ?? []).flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
    if (responses.length > 0) {
      this.open().sendToolResponse({ functionResponses: responses as GenaiFunctionResponse[] });
      return;
    }
    const turns = toGeminiContents([{ ...content, role: content.role ?? "user" }], { vertex: this.options.vertex });
    if (turns.length > 0) this.open().sendClientContent({ turns, turnComplete: true });
  }

  async sendRealtime(blob: Blob): Promise<void> {
    const mime = blob.mimeType ?? "";
    if (mime.startsWith("audio/")) this.open().sendRealtimeInput({ audio: blob });
    else if (mime.startsWith("image/") || mime.startsWith("video/")) this.open().sendRealtimeInput({ video: blob });
    else this.open().sendRealtimeInput({ media: blob });
  }

  async *receive(): AsyncGenerator<LlmResponse, void, void> {
    for (;;) {
      const item = this.queue.shift();
      if (item) {
        if ("end" in item) return;
        if ("error" in item) throw item.error;
        yield item.response;
        continue;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.stopFollowing?.();
    this.options.onClose?.(this);
    try {
      this.session?.close();
    } catch {
      // The socket was never open or is already gone.
    }
    // `receive()` ends now, without waiting for the close handshake (a dead peer may never answer it).
    this.push({ end: true });
  }

  private open(): Session {
    if (this.closing || this.ended || !this.session) {
      throw new ProviderError({
        category: ErrorCategory.CLIENT_ERROR,
        provider: "gemini",
        message: "The Gemini live connection is closed; open a new one with connect().",
      });
    }
    return this.session;
  }

  private onMessage(message: LiveServerMessage): void {
    const content = message.serverContent;
    if (content) {
      for (const part of content.modelTurn?.parts ?? []) {
        if (typeof part.text === "string" && !part.inlineData && !part.functionCall) {
          if (part.text.length === 0) continue;
          if (part.thought) this.thoughtText += part.text;
          else this.text += part.text;
          this.push({
            response: {
              content: {
                role: "model",
                parts: [part.thought ? { text: part.text, thought: true } : { text: part.text }],
              },
              partial: true,
            },
          });
        } else {
          this.push({ response: { content: { role: "model", parts: [{ ...part }] } } });
        }
      }
      if (content.inputTranscription)
        this.push({
          response: {
            inputTranscription: { ...content.inputTranscription },
            partial: !content.inputTranscription.finished,
          },
        });
      if (content.outputTranscription)
        this.push({
          response: {
            outputTranscription: { ...content.outputTranscription },
            partial: !content.outputTranscription.finished,
          },
        });
      if (content.groundingMetadata)
        this.push({ response: { groundingMetadata: { ...content.groundingMetadata } as Record<string, unknown> } });
      this.pushUsage(message);
      if (content.interrupted) {
        this.flushText();
        this.push({ response: { interrupted: true } });
      }
      if (content.turnComplete) {
        this.flushText();
        this.push({ response: { turnComplete: true } });
      }
    }
    if (message.toolCall?.functionCalls?.length) {
      this.flushText();
      this.push({
        response: {
          content: {
            role: "model",
            parts: message.toolCall.functionCalls.map((call) => ({ functionCall: { ...call } })),
          },
        },
      });
    }
    if (!content) this.pushUsage(message);
    if (message.sessionResumptionUpdate)
      this.push({ response: { liveSessionResumptionUpdate: { ...message.sessionResumptionUpdate } } });
  }

  /** Usage before the turn's end, so a reader that stops at `turnComplete` has seen it. */
  private pushUsage(message: LiveServerMessage): void {
    if (!message.usageMetadata) return;
    const usage = toUsageMetadata(message.usageMetadata) ?? {};
    // The Live API counts output as `responseTokenCount`.
    const response = (message.usageMetadata as { responseTokenCount?: number }).responseTokenCount;
    if (usage.candidatesTokenCount === undefined && response !== undefined) usage.candidatesTokenCount = response;
    this.push({ response: { usageMetadata: usage } });
  }

  /** The turn's text so far as one complete response (the partials' concatenation). */
  private flushText(): void {
    const parts = [
      ...(this.thoughtText ? [{ text: this.thoughtText, thought: true }] : []),
      ...(this.text ? [{ text: this.text }] : []),
    ];
    this.text = "";
    this.thoughtText = "";
    if (parts.length > 0) this.push({ response: { content: { role: "model", parts } } });
  }

  private onSocketClose(code: number | undefined, reason: string | undefined): void {
    this.ended = true;
    this.stopFollowing?.();
    this.options.onClose?.(this);
    this.flushText();
    // 1000 (normal) and 1005 (no status) are orderly; anything else while we did not close is a failure.
    if (!this.closing && code !== undefined && code !== 1000 && code !== 1005) {
      this.push({ error: closeError(code, reason) });
    }
    this.push({ end: true });
  }

  private push(item: QueueItem): void {
    this.queue.push(item);
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** The part of the SDK's WebSocket factory (`Live`'s) that `connectWithin` wraps. */
interface LiveSocketFactory {
  create(url: string, headers: Record<string, string>, callbacks: unknown): { close(): void };
}

/**
 * `live.connect` (the socket opened, the setup sent, the service's `setupComplete` back), given
 * up on the caller's abort (CANCELLED) or after `timeoutMs` (TIMEOUT). The SDK offers neither a
 * signal nor a timeout for it, and gives no handle on the socket until it resolves: a view of
 * `client.live` with its socket factory wrapped notes the socket it makes, so a session given up
 * on is closed at once (a peer that never completes the setup would otherwise keep it open).
 * Should the SDK keep its factory elsewhere, the session is closed when `connect` resolves.
 */
async function connectWithin(
  client: GoogleGenAI,
  params: LiveConnectParameters,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<Session> {
  let socket: { close(): void } | undefined;
  let abandoned = false;
  const live = tapSockets(client.live, (created) => {
    socket = created;
    // Made after the call was given up (`connect` was still preparing): closed once it connects.
    if (abandoned) queueMicrotask(() => closeQuietly(created));
  });
  const connecting = live.connect(params);
  return await new Promise<Session>((resolve, reject) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => giveUp(cancelledBeforeOpen(signal?.reason));
    const finish = () => {
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const giveUp = (error: ProviderError) => {
      if (settled) return;
      finish();
      abandoned = true;
      if (socket) closeQuietly(socket);
      reject(error);
    };
    connecting.then(
      (session) => {
        if (settled) closeQuietly(session);
        else {
          finish();
          resolve(session);
        }
      },
      (error: unknown) => {
        if (settled) return;
        finish();
        reject(error);
      },
    );
    timer = setTimeout(
      () =>
        giveUp(
          new ProviderError({
            category: ErrorCategory.TIMEOUT,
            provider: "gemini",
            message:
              `The Gemini live connection did not open within ${timeoutMs} ms (no setupComplete from the service). ` +
              `Raise the timeoutMs option if it keeps happening.`,
          }),
        ),
      timeoutMs,
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `live` with its WebSocket factory wrapped to report each socket it makes (`live` itself unchanged). */
function tapSockets(live: Live, onCreate: (socket: { close(): void }) => void): Live {
  const factory = (live as unknown as { webSocketFactory?: LiveSocketFactory }).webSocketFactory;
  if (typeof factory?.create !== "function") return live;
  const tapped: LiveSocketFactory = {
    create: (url, headers, callbacks) => {
      const socket = factory.create(url, headers, callbacks);
      onCreate(socket);
      return socket;
    },
  };
  return Object.create(live, { webSocketFactory: { value: tapped } }) as Live;
}

function closeQuietly(socket: { close(): void }): void {
  try {
    socket.close();
  } catch {
    // Not connected yet or already closed.
  }
}

function cancelledBeforeOpen(reason: unknown): ProviderError {
  return new ProviderError({
    category: ErrorCategory.CANCELLED,
    provider: "gemini",
    message: "The Gemini live connection was cancelled before it opened.",
    cause: reason,
  });
}

function liveError(message: string, cause: unknown): unknown {
  const mapped = toProviderError(cause ?? new Error(message));
  if (mapped instanceof ProviderError && mapped.category !== ErrorCategory.UNKNOWN) return mapped;
  return new ProviderError({
    category: ErrorCategory.NETWORK,
    provider: "gemini",
    message: `Gemini live connection: ${message}`,
    cause,
  });
}

/** Close codes of the Live API: 1007/1008 reject the request (bad setup, policy), 1011 is a server fault. */
function closeError(code: number, reason: string | undefined): ProviderError {
  const detail = `Gemini closed the live connection (code ${code}${reason ? `: ${reason}` : ""})`;
  if (code === 1007 || code === 1008) {
    return new ProviderError({
      category: /api key|permission|auth/i.test(reason ?? "") ? ErrorCategory.AUTH_ERROR : ErrorCategory.CLIENT_ERROR,
      provider: "gemini",
      message: `${detail}. Check the model name and the live settings.`,
    });
  }
  if (code === 1011 || code === 1013)
    return new ProviderError({
      category: ErrorCategory.SERVER_ERROR,
      provider: "gemini",
      message: `${detail}. Reconnect to continue.`,
    });
  return new ProviderError({
    category: ErrorCategory.NETWORK,
    provider: "gemini",
    message: `${detail}. Reconnect to continue.`,
  });
}
