import { LiveRequestQueue, type LiveRequest } from "@agentkit/core";

export interface LiveQueueLimits {
  /** Requests held that the run has not taken yet. */
  maxFrames: number;
  /** Bytes of the client frames those requests came from. */
  maxBytes: number;
}

/** What `offer` did with a client frame's requests. */
export type OfferOutcome = "queued" | "full" | "closed";

interface Held {
  request: LiveRequest;
  bytes: number;
}

/**
 * The LiveRequestQueue of one `/run_live` socket, bounded: what the client sent and the run
 * has not taken yet (while it waits for its session's turn, or while the model is slow) may
 * not pass `maxFrames` requests or `maxBytes` bytes of frames. Once closed it takes nothing
 * more, and `discard()` drops whatever it holds, so a closed socket keeps no frames alive.
 */
export class BoundedLiveRequestQueue extends LiveRequestQueue {
  private readonly held: Held[] = [];
  private readers: ((request: LiveRequest) => void)[] = [];
  private ended = false;
  private heldBytes = 0;

  constructor(private readonly limits: LiveQueueLimits) {
    super();
  }

  /** Requests held for the run. */
  get pendingFrames(): number {
    return this.held.length;
  }

  /** Bytes of the frames those requests came from. */
  get pendingBytes(): number {
    return this.heldBytes;
  }

  override get isClosed(): boolean {
    return this.ended;
  }

  /**
   * Queues the requests of one client frame of `bytes` bytes, all or none: `full` when they
   * would pass a bound, `closed` once the queue is closed (the session is ending).
   */
  offer(requests: readonly LiveRequest[], bytes: number): OfferOutcome {
    if (this.ended) return "closed";
    const waiting = Math.max(0, requests.length - this.readers.length);
    if (
      waiting > 0 &&
      (this.held.length + waiting > this.limits.maxFrames || this.heldBytes + bytes > this.limits.maxBytes)
    ) {
      return "full";
    }
    for (const [i, request] of requests.entries()) this.push(request, i === 0 ? bytes : 0);
    return "queued";
  }

  /** Unbounded (the server's own `close()`); client frames go through `offer`. */
  override send(request: LiveRequest): void {
    if (!this.ended) this.push(request, 0);
  }

  override async get(signal?: AbortSignal): Promise<LiveRequest> {
    const next = this.held.shift();
    if (next) {
      this.heldBytes -= next.bytes;
      return next.request;
    }
    if (this.ended) return { close: true };
    if (signal?.aborted) return { close: true };
    return new Promise<LiveRequest>((resolve) => {
      const onAbort = () => {
        this.readers = this.readers.filter((r) => r !== reader);
        resolve({ close: true });
      };
      const reader = (request: LiveRequest) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(request);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.readers.push(reader);
    });
  }

  /** Ends the queue and drops every held request (the socket is gone): readers get `close`. */
  discard(): void {
    this.ended = true;
    this.held.length = 0;
    this.heldBytes = 0;
    for (const reader of this.readers.splice(0)) reader({ close: true });
  }

  private push(request: LiveRequest, bytes: number): void {
    if (request.close) this.ended = true;
    const reader = this.readers.shift();
    if (reader) reader(request);
    else {
      this.held.push({ request, bytes });
      this.heldBytes += bytes;
    }
    // A close wakes every other reader too, or they would wait forever.
    if (request.close) for (const r of this.readers.splice(0)) r({ close: true });
  }
}
