import { Fifo } from "../concurrency/fifo.js";
import type { Event } from "../events/event.js";

interface Item {
  event: Event;
  taken: () => void;
  dropped: (error: Error) => void;
}

/**
 * The stream of one node run: events the node yields, emits with `ctx.emit`, or its `ctx.runNode`
 * children produce, in arrival order. `push` settles once the reader took the event and came back
 * for the next one, i.e. once the runner stored it, so a child agent continues only after its
 * event is in the session. Closing drops what is queued and refuses later pushes.
 */
export class NodeChannel {
  private readonly queue = new Fifo<Item>();
  private wake?: () => void;
  private closedWith?: Error;

  push(event: Event): Promise<void> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise<void>((taken, dropped) => {
      this.queue.push({ event, taken, dropped });
      this.notify();
    });
  }

  /** The next queued event, or undefined when none is waiting. */
  take(): Item | undefined {
    return this.queue.shift();
  }

  get isEmpty(): boolean {
    return this.queue.length === 0;
  }

  /** Resolves when an event arrives or `notify` is called. */
  waitForActivity(): Promise<void> {
    if (this.queue.length > 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }

  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  close(reason: Error): void {
    this.closedWith ??= reason;
    for (let item = this.queue.shift(); item; item = this.queue.shift()) item.dropped(reason);
    this.notify();
  }
}
