import { RunAbortedError } from "../errors/run-errors.js";
import { Fifo } from "./fifo.js";
import { isThenable } from "./is-thenable.js";

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
  /**
   * A key taken while nothing was held, for as long as nobody waits for it (other keys may be
   * taken meanwhile, in `lines`): the common case, one session's appends one after another, then
   * never touches the Map. V8 reallocates a Map's table in a runtime call when a delete leaves it
   * under half full, and again when sets have filled it with deleted entries; a key set and
   * deleted per task paid that on every task (about 6% of an in-process invocation).
   */
  private solo: string | undefined;
  /** Key → the waiters behind the current holder (present while the key is held, unless `solo`). */
  private readonly lines = new Map<string, Fifo<Waiter>>();
  /** Resolved when no key is held any more (see `idle`). */
  private idleWaiters: (() => void)[] = [];

  /** Keys currently held or waited for. */
  get size(): number {
    return this.lines.size + (this.solo === undefined ? 0 : 1);
  }

  /**
   * Waits for the key's turn; the caller must call the returned release exactly when done. Not
   * an async function: a free key answers with one resolved promise (no frame, no awaited turn).
   */
  acquire(key: string, signal?: AbortSignal): Promise<ReleaseSlot> {
    let waiting: Promise<void> | undefined;
    try {
      waiting = this.enter(key, signal);
    } catch (error) {
      return Promise.reject(error);
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.release(key);
    };
    return waiting ? waiting.then(() => release) : Promise.resolve(release);
  }

  /** Resolves once nothing is held or waiting (e.g. before closing what the tasks use). */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Runs `task` holding the key's slot (released when it settles, also on failure). */
  run<T>(key: string, task: () => Promise<T> | T, signal?: AbortSignal): Promise<T> {
    try {
      const result = this.runNow(key, task, signal);
      // A thenable here is the promise `hold` made (it wraps a task's own thenable).
      return isThenable(result) ? (result as Promise<T>) : Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * `run` without its promise when the key is free and the task finishes within the call: then
   * the task's value (or its error, thrown); else a promise of it. For hot paths whose tasks
   * usually finish at once (an in-memory session append): no promise and no microtask turn.
   */
  runNow<T>(key: string, task: () => Promise<T> | T, signal?: AbortSignal): T | Promise<T> {
    // A free key runs the task at once: no extra turn of the event loop for the common case.
    const waiting = this.enter(key, signal);
    return waiting ? waiting.then(() => this.hold(key, task)) : this.hold(key, task);
  }

  /** The task's outcome, the slot released once it settles (a plain promise chain: no async frame). */
  private hold<T>(key: string, task: () => Promise<T> | T): T | Promise<T> {
    let result: Promise<T> | T;
    try {
      result = task();
    } catch (error) {
      this.release(key);
      throw error;
    }
    // A task that finished in the call frees the slot now, not a microtask turn later.
    if (!isThenable(result)) {
      this.release(key);
      return result;
    }
    return Promise.resolve(result).then(
      (value) => {
        this.release(key);
        return value;
      },
      (error: unknown) => {
        this.release(key);
        throw error;
      },
    );
  }

  /** Takes the key's slot: at once when it is free (no promise made), else in line. */
  private enter(key: string, signal: AbortSignal | undefined): Promise<void> | undefined {
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    if (this.solo === undefined && this.lines.size === 0) {
      this.solo = key;
      return undefined;
    }
    let line: Fifo<Waiter> | undefined;
    if (this.solo === key) {
      // Someone now waits behind the solo holder: its line moves to the Map.
      this.solo = undefined;
      line = new Fifo();
      this.lines.set(key, line);
    } else line = this.lines.get(key);
    if (!line) {
      this.lines.set(key, new Fifo());
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        line.takeFirst((w) => w === waiter);
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
  }

  /** Hands the key to the next in line, or forgets it. */
  private release(key: string): void {
    if (this.solo === key) {
      this.solo = undefined;
      this.notifyIfIdle();
      return;
    }
    const next = this.lines.get(key)?.shift();
    if (next) {
      next.grant();
      return;
    }
    this.lines.delete(key);
    this.notifyIfIdle();
  }

  private notifyIfIdle(): void {
    // Checked first: `splice` makes an array even when nothing waits, and this runs per task.
    if (this.idleWaiters.length > 0 && this.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
