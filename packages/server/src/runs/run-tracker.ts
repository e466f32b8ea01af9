import { ServerDrainingError } from "../errors/server-errors.js";

/**
 * The runs in progress, so shutdown can wait for them (up to a grace period) and then abort
 * the rest through their AbortControllers, and the answers of run requests, so the server
 * closes connections only after a cut run's client got its error frame or 503 body.
 */
export class RunTracker {
  private readonly runs = new Map<AbortController, Promise<void>>();
  private readonly answers = new Set<Promise<void>>();
  private draining = false;

  get size(): number {
    return this.runs.size;
  }

  /** True once shutdown began: new runs are refused. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Registers a run; call the returned function when it ends (any way). */
  start(controller: AbortController): () => void {
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    this.runs.set(controller, done);
    return () => {
      this.runs.delete(controller);
      end();
    };
  }

  /**
   * Registers the answer of a run request: `drain` waits for it (after the runs), so the error
   * frame or 503 body of a cut run is written before connections are closed.
   */
  answering(answer: Promise<unknown>): void {
    const settled = answer.then(
      () => undefined,
      () => undefined,
    );
    this.answers.add(settled);
    void settled.then(() => this.answers.delete(settled));
  }

  /**
   * Stops new runs, waits up to `graceMs` for the running ones, then aborts them with
   * `ServerDrainingError` (what their clients are told) and awaits them and their answers.
   */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.runs.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, graceMs))));
      await Promise.race([Promise.all(this.runs.values()), grace]);
      clearTimeout(timer);
      for (const controller of this.runs.keys()) controller.abort(new ServerDrainingError());
      await Promise.all(this.runs.values());
    }
    await Promise.all(this.answers);
  }
}

/** True when the run was cut by the server's shutdown (not by its client leaving). */
export function cutByShutdown(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof ServerDrainingError;
}
