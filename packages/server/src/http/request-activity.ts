import type { RequestListener } from "node:http";

/**
 * Which requests are in flight, for background work that should take its turn between them (the
 * warm-up that runs after `listen`) or wait for a quiet server (the idle memory reduction). A request counts from its arrival until its response
 * closes (sent, or the connection gone).
 */
export class RequestActivity {
  private inFlight = 0;
  private arrived = 0;
  private waiters: (() => void)[] = [];
  private closed = false;
  private readonly ended = () => {
    this.inFlight -= 1;
    if (this.inFlight === 0) this.wake();
  };

  /** The listener, counting its requests. */
  wrap(listener: RequestListener): RequestListener {
    return (req, res) => {
      this.inFlight += 1;
      this.arrived += 1;
      res.once("close", this.ended);
      listener(req, res);
    };
  }

  /** Requests in flight now. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Requests that arrived so far: unchanged between two readings means none arrived between them. */
  get requestsArrived(): number {
    return this.arrived;
  }

  /**
   * Resolves once no request is in flight, after the requests already queued in the event loop
   * had their turn (a macrotask), or at once after `close`.
   */
  async whenIdle(): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.inFlight === 0 || this.closed) return;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Releases every waiter for good (the server is closing). */
  close(): void {
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
