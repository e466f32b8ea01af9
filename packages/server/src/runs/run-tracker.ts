/**
 * The runs in progress, so shutdown can wait for them (up to a grace period) and then abort
 * the rest through their AbortControllers.
 */
export class RunTracker {
  private readonly runs = new Map<AbortController, Promise<void>>();
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

  /** Stops new runs, waits up to `graceMs` for the running ones, then aborts and awaits them. */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.runs.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, graceMs))));
    await Promise.race([Promise.all(this.runs.values()), grace]);
    clearTimeout(timer);
    for (const controller of this.runs.keys()) controller.abort(new Error("The server is shutting down."));
    await Promise.all(this.runs.values());
  }
}
