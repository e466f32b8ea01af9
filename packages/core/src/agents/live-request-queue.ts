import type { Blob, Content } from "../content/content.js";
import { Fifo } from "../concurrency/fifo.js";

/** One message from the client to a live run. */
export interface LiveRequest {
  content?: Content;
  blob?: Blob;
  /** Ends the live run. */
  close?: boolean;
}

/**
 * The client side of a live (BIDI) run: a FIFO of `LiveRequest`s read by the flow.
 * `close()` ends the stream; sends after close are ignored.
 */
export class LiveRequestQueue {
  private readonly buffer = new Fifo<LiveRequest>();
  private waiters: ((r: LiveRequest) => void)[] = [];
  private closed = false;

  send(request: LiveRequest): void {
    if (this.closed) return;
    if (request.close) this.closed = true;
    const waiter = this.waiters.shift();
    if (waiter) waiter(request);
    else this.buffer.push(request);
    // Every other pending reader would otherwise wait forever on a closed queue.
    if (request.close) for (const w of this.waiters.splice(0)) w({ close: true });
  }

  sendContent(content: Content): void {
    this.send({ content });
  }

  sendRealtime(blob: Blob): void {
    this.send({ blob });
  }

  close(): void {
    this.send({ close: true });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The next request; resolves with `{ close: true }` once closed and drained. */
  async get(signal?: AbortSignal): Promise<LiveRequest> {
    const next = this.buffer.shift();
    if (next) return next;
    if (this.closed) return { close: true };
    return new Promise<LiveRequest>((resolve) => {
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve({ close: true });
      };
      const waiter = (r: LiveRequest) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(r);
      };
      if (signal?.aborted) return resolve({ close: true });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Iterates requests until a close request (not yielded). */
  async *[Symbol.asyncIterator](): AsyncGenerator<LiveRequest, void, void> {
    for (;;) {
      const r = await this.get();
      if (r.close) return;
      yield r;
    }
  }
}
