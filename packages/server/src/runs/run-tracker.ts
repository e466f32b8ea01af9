import { settlesWithin } from "@agentkit/core/internal";
import { ServerDrainingError } from "../errors/server-errors.js";
import type { LogFields, ServerLogger } from "../server-logger.js";

/** How long shutdown waits, once it has aborted the runs left, for them and their answers to end. */
export const SETTLE_AFTER_ABORT_MS = 2000;

interface TrackedRun {
  readonly done: Promise<void>;
  /** What the run is about, for the warning about a run that did not end after its abort. */
  readonly fields: LogFields | undefined;
}

/**
 * The runs in progress, so shutdown can wait for them (up to a grace period) and then abort
 * the rest through their AbortControllers, and the answers of run requests, so the server
 * closes connections only after a cut run's client got its error frame or 503 body. What has
 * not ended `settleMs` after the abort (code that ignores its signal) is logged and left behind:
 * shutdown goes on.
 */
export class RunTracker {
  private readonly runs = new Map<AbortController, TrackedRun>();
  private readonly answers = new Set<Promise<void>>();
  private draining = false;

  constructor(
    private readonly logger?: ServerLogger,
    private readonly settleMs = SETTLE_AFTER_ABORT_MS,
  ) {}

  get size(): number {
    return this.runs.size;
  }

  /** True once shutdown began: new runs are refused. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Registers a run; call the returned function when it ends (any way). */
  start(controller: AbortController, fields?: LogFields): () => void {
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    this.runs.set(controller, { done, fields });
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
   * `ServerDrainingError` (what their clients are told) and waits up to `settleMs` for them and
   * their answers; the runs still going then are logged (a warning each) and left behind.
   */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.runs.size > 0) {
      await settlesWithin(this.running(), graceMs);
      for (const controller of this.runs.keys()) controller.abort(new ServerDrainingError());
    }
    if (this.runs.size === 0 && this.answers.size === 0) return;
    // One deadline for both: the runs first, then the answers (written once their runs ended).
    const deadline = performance.now() + this.settleMs;
    const settled =
      (await settlesWithin(this.running(), this.settleMs)) &&
      (await settlesWithin(Promise.all(this.answers), deadline - performance.now()));
    if (settled) return;
    for (const { fields } of this.runs.values()) {
      this.logger?.warn(
        `A run did not end within ${this.settleMs} ms of its abort by shutdown; closing without it`,
        undefined,
        fields,
      );
    }
    if (this.runs.size === 0) {
      this.logger?.warn(
        `${this.answers.size} run answer(s) not written within ${this.settleMs} ms; closing without them`,
      );
    }
  }

  private running(): Promise<unknown> {
    return Promise.all([...this.runs.values()].map((run) => run.done));
  }
}

/** True when the run was cut by the server's shutdown (not by its client leaving). */
export function cutByShutdown(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof ServerDrainingError;
}
