import { RunAbortedError } from "@agentkit/core";

/** Releases a slot taken with `SessionRunQueue.acquire`; calling it twice is harmless. */
export type ReleaseRun = () => void;

interface Waiter {
  grant: () => void;
}

/**
 * Serializes work on one session inside this process: runs (and state patches) on the same
 * session key take turns in arrival order, so two concurrent `/run` calls never interleave
 * their appends. Waiting is cancellable: an aborted signal leaves the line with
 * `RunAbortedError`. Different sessions never wait for each other.
 */
export class SessionRunQueue {
  /** Key → whether a holder is running, plus who waits behind it. */
  private readonly lines = new Map<string, Waiter[]>();

  static keyOf(appName: string, userId: string, sessionId: string): string {
    return JSON.stringify([appName, userId, sessionId]);
  }

  /** Sessions with a run in progress or waiting. */
  get size(): number {
    return this.lines.size;
  }

  async acquire(key: string, signal?: AbortSignal): Promise<ReleaseRun> {
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    const line = this.lines.get(key);
    if (!line) {
      this.lines.set(key, []);
      return this.releaser(key);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const i = line.indexOf(waiter);
        if (i >= 0) line.splice(i, 1);
        reject(new RunAbortedError({ cause: signal?.reason }));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      line.push(waiter);
    });
    return this.releaser(key);
  }

  /** Runs `work` holding the session's slot. */
  async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(key, signal);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private releaser(key: string): ReleaseRun {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const line = this.lines.get(key);
      const next = line?.shift();
      if (next) next.grant();
      else this.lines.delete(key);
    };
  }
}
