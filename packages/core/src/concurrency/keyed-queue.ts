import { RunAbortedError } from "../errors/run-errors.js";

/** Gives back a slot taken with `KeyedQueue.acquire`; calling it twice is harmless. */
export type ReleaseSlot = () => void;

interface Waiter {
  grant: () => void;
}

/**
 * Runs work with the same key one at a time, in arrival order, inside this process; different
 * keys never wait for each other. Waiting is cancellable (an aborted signal leaves the line with
 * `RunAbortedError`), a failed task releases its slot like a finished one, and a key is
 * forgotten as soon as nobody holds or waits for it, so the map never grows with the keys seen.
 * The one serial queue of the code base: session appends, server runs per session, artifact
 * writes per name, eval-set edits per app.
 */
export class KeyedQueue {
  /** Key → the waiters behind the current holder (present while the key is held). */
  private readonly lines = new Map<string, Waiter[]>();
  /** Resolved when no key is held any more (see `idle`). */
  private idleWaiters: (() => void)[] = [];

  /** Keys currently held or waited for. */
  get size(): number {
    return this.lines.size;
  }

  /** Waits for the key's turn; the caller must call the returned release exactly when done. */
  async acquire(key: string, signal?: AbortSignal): Promise<ReleaseSlot> {
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    const line = this.lines.get(key);
    if (!line) {
      this.lines.set(key, []);
      return this.releaser(key);
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = line.indexOf(waiter);
        if (i >= 0) line.splice(i, 1);
        reject(new RunAbortedError({ cause: signal?.reason }));
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      line.push(waiter);
    });
    return this.releaser(key);
  }

  /** Resolves once nothing is held or waiting (e.g. before closing what the tasks use). */
  idle(): Promise<void> {
    if (this.lines.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Runs `task` holding the key's slot (released when it settles, also on failure). */
  async run<T>(key: string, task: () => Promise<T> | T, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(key, signal);
    try {
      return await task();
    } finally {
      release();
    }
  }

  private releaser(key: string): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.lines.get(key)?.shift();
      if (next) return next.grant();
      this.lines.delete(key);
      if (this.lines.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
  }
}
