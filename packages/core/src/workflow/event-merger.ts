import { Fifo } from "../concurrency/fifo.js";

/** What `EventMerger.next` reports for one of its generators. */
export type Merged<K, T, R> =
  | { key: K; kind: "value"; value: T }
  | { key: K; kind: "done"; result: R }
  | { key: K; kind: "error"; error: unknown };

type Settled<K, T, R> = Merged<K, T, R>;

/**
 * Runs generators concurrently and hands out their results in the order they settle. Each
 * generator runs one step at a time and is pulled again only when the consumer asks for the next
 * result after taking its value (so the consumer can store an event before its producer goes on).
 * Generators can be added while it runs. `close` stops the ones still running.
 */
export class EventMerger<K, T, R> {
  private readonly runs = new Map<K, AsyncGenerator<T, R, void>>();
  private readonly ready = new Fifo<Settled<K, T, R>>();
  private readonly pending = new Set<K>();
  private wake?: () => void;
  private repull?: K;

  /** Generators not finished yet. */
  get size(): number {
    return this.runs.size;
  }

  add(key: K, run: AsyncGenerator<T, R, void>): void {
    this.runs.set(key, run);
    this.pull(key);
  }

  async next(): Promise<Merged<K, T, R>> {
    if (this.repull !== undefined) {
      const key = this.repull;
      this.repull = undefined;
      if (this.runs.has(key)) this.pull(key);
    }
    while (this.ready.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    const next = this.ready.shift()!;
    if (next.kind === "value") this.repull = next.key;
    else this.runs.delete(next.key);
    return next;
  }

  /** Stops every generator still running (a generator busy in a step gets its return queued). */
  async close(): Promise<void> {
    const closing: Promise<unknown>[] = [];
    for (const [key, run] of this.runs) {
      if (this.pending.has(key)) run.return(undefined as R).catch(() => {});
      else closing.push(run.return(undefined as R).catch(() => {}));
    }
    this.runs.clear();
    await Promise.all(closing);
  }

  private pull(key: K): void {
    const run = this.runs.get(key)!;
    this.pending.add(key);
    run.next().then(
      (result) =>
        this.settle(
          result.done ? { key, kind: "done", result: result.value } : { key, kind: "value", value: result.value },
        ),
      (error: unknown) => this.settle({ key, kind: "error", error }),
    );
  }

  private settle(settled: Settled<K, T, R>): void {
    this.pending.delete(settled.key);
    if (!this.runs.has(settled.key)) return; // closed meanwhile
    this.ready.push(settled);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
