import { randomUUID } from "node:crypto";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";

/** What a progress notification reports. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** `_meta` key that ties an outgoing request to a listener; removed before the request is sent. */
const LISTENER_KEY = "agentkit/progress-listener";

/** One tool call's progress subscription. */
export interface ProgressSubscription {
  /** To merge into the request's `params._meta`. */
  readonly meta: Record<string, unknown>;
  /** Stops delivery (after the call settled). */
  stop(): void;
}

/**
 * Progress listeners of the running tool calls of one session manager, across its transports.
 *
 * Why not the SDK's `onprogress`: the SDK (1.32) handles a response as soon as it is read but a
 * notification one microtask later, and a response removes its request's progress handler. So
 * the notifications a server writes just before its result (which arrive in the same chunk on a
 * busy machine) are dropped (modelcontextprotocol/typescript-sdk#2580). The tap below delivers
 * them synchronously, in arrival order, before the SDK sees the result.
 */
export class ProgressListeners {
  private readonly listeners = new Map<string, (update: ProgressUpdate) => void>();

  subscribe(listener: (update: ProgressUpdate) => void): ProgressSubscription {
    const id = randomUUID();
    this.listeners.set(id, listener);
    return { meta: { [LISTENER_KEY]: id }, stop: () => this.listeners.delete(id) };
  }

  /** Wraps a transport so that progress for subscribed calls reaches their listeners. */
  tap(transport: Transport): ProgressTap {
    return new ProgressTap(transport, this.listeners);
  }
}

/** A transport that routes progress notifications to listeners before passing every message on. */
export class ProgressTap implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  /** Listener of each progress token in flight on this transport (the token the SDK assigned). */
  private readonly byToken = new Map<string | number, string>();

  constructor(
    readonly inner: Transport,
    private readonly listeners: Map<string, (update: ProgressUpdate) => void>,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      this.route(message);
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const params = "method" in message ? (message.params as Record<string, unknown> | undefined) : undefined;
    const meta = params?._meta as Record<string, unknown> | undefined;
    const listenerId = meta?.[LISTENER_KEY];
    if (typeof listenerId !== "string") return this.inner.send(message, options);
    const { [LISTENER_KEY]: _, ...rest } = meta!;
    const token = rest.progressToken;
    if ((typeof token === "string" || typeof token === "number") && this.listeners.has(listenerId)) {
      // Tokens of settled calls are forgotten lazily: each is checked against the live listeners.
      for (const [t, id] of this.byToken) if (!this.listeners.has(id)) this.byToken.delete(t);
      this.byToken.set(token, listenerId);
    }
    const _meta = Object.keys(rest).length > 0 ? rest : undefined;
    const { _meta: __, ...others } = params!;
    return this.inner.send({ ...message, params: _meta ? { ...others, _meta } : others } as JSONRPCMessage, options);
  }

  private route(message: JSONRPCMessage): void {
    if (!("method" in message) || message.method !== "notifications/progress" || "id" in message) return;
    const params = message.params as {
      progressToken?: unknown;
      progress?: unknown;
      total?: unknown;
      message?: unknown;
    };
    const id =
      typeof params?.progressToken === "string" || typeof params?.progressToken === "number"
        ? this.byToken.get(params.progressToken)
        : undefined;
    const listener = id === undefined ? undefined : this.listeners.get(id);
    if (!listener || typeof params.progress !== "number") return;
    try {
      listener({
        progress: params.progress,
        ...(typeof params.total === "number" ? { total: params.total } : {}),
        ...(typeof params.message === "string" ? { message: params.message } : {}),
      });
    } catch (error) {
      // As the SDK treats a throwing notification handler: reported, never breaking the read loop.
      this.onerror?.(new Error(`Uncaught error in a progress listener: ${String(error)}`, { cause: error }));
    }
  }
}
