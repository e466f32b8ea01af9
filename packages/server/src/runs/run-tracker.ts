import { settlesWithin } from "@agentkit/core/internal";
import { ServerDrainingError } from "../errors/server-errors.js";
import type { LogFields, ServerLogger } from "../server-logger.js";

/** How long shutdown waits, once it has aborted the runs left, for them and their answers to end. */
export const SETTLE_AFTER_ABORT_MS = 2000;

/** A run in progress: a node of the tracker's list, unlinked when the run ends. */
interface TrackedRun {
  readonly controller: AbortController;
  /** What the run is about, for the warning about a run that did not end after its abort. */
  readonly fields: LogFields | undefined;
  prev: TrackedRun | undefined;
  next: TrackedRun | undefined;
}

/**
 * The runs in progress, so shutdown can wait for them (up to a grace period) and then abort
 * the rest through their AbortControllers, and the answers of run requests, so the server
 * closes connections only after a cut run's client got its error frame or 503 body. What has
 * not ended `settleMs` after the abort (code that ignores its signal) is logged and left behind:
 * shutdown goes on.
 *
 * Runs are a linked list and answers a count, each with a waiter that only `drain` makes: a
 * `Map` and a `Set` entry per request, emptied and refilled under load, made V8 reallocate
 * their tables again and again, and a promise per run and two per answer were made for a
 * shutdown that rarely comes.
 */
export class RunTracker {
  private first: TrackedRun | undefined;
  private runCount = 0;
  private answersPending = 0;
  /** Waits (made by `drain` only) for the last run to end and for the last answer to be written. */
  private readonly runsEnded = new ZeroWaiters();
  private readonly answersWritten = new ZeroWaiters();
  private draining = false;

  constructor(
    private readonly logger?: ServerLogger,
    private readonly settleMs = SETTLE_AFTER_ABORT_MS,
  ) {}

  get size(): number {
    return this.runCount;
  }

  /** True once shutdown began: new runs are refused. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Registers a run; call the returned function when it ends (any way; a second call does nothing). */
  start(controller: AbortController, fields?: LogFields): () => void {
    const run: TrackedRun = { controller, fields, prev: undefined, next: this.first };
    if (this.first) this.first.prev = run;
    this.first = run;
    this.runCount += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.unlink(run);
    };
  }

  /**
   * Registers the answer of a run request: `drain` waits for it (after the runs), so the error
   * frame or 503 body of a cut run is written before connections are closed.
   */
  answering(answer: Promise<unknown>): void {
    this.answersPending += 1;
    const written = () => {
      this.answersPending -= 1;
      if (this.answersPending === 0) this.answersWritten.release();
    };
    answer.then(written, written);
  }

  /**
   * Stops new runs, waits up to `graceMs` for the running ones, then aborts them with
   * `ServerDrainingError` (what their clients are told) and waits up to `settleMs` for them and
   * their answers; the runs still going then are logged (a warning each) and left behind.
   */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.runCount > 0) {
      await settlesWithin(this.runsEnded.wait(this.runCount), graceMs);
      for (const run of this.running()) run.controller.abort(new ServerDrainingError());
    }
    if (this.runCount === 0 && this.answersPending === 0) return;
    // One deadline for both: the runs first, then the answers (written once their runs ended).
    const deadline = performance.now() + this.settleMs;
    const settled =
      (await settlesWithin(this.runsEnded.wait(this.runCount), this.settleMs)) &&
      (await settlesWithin(this.answersWritten.wait(this.answersPending), deadline - performance.now()));
    if (settled) return;
    for (const { fields } of this.running()) {
      this.logger?.warn(
        `A run did not end within ${this.settleMs} ms of its abort by shutdown; closing without it`,
        undefined,
        fields,
      );
    }
    if (this.runCount === 0) {
      this.logger?.warn(
        `${this.answersPending} run answer(s) not written within ${this.settleMs} ms; closing without them`,
      );
    }
  }

  private unlink(run: TrackedRun): void {
    if (run.prev) run.prev.next = run.next;
    else this.first = run.next;
    if (run.next) run.next.prev = run.prev;
    run.prev = undefined;
    run.next = undefined;
    this.runCount -= 1;
    if (this.runCount === 0) this.runsEnded.release();
  }

  /** The runs in progress now (a copy: aborting one may end it while the list is walked). */
  private running(): TrackedRun[] {
    const runs: TrackedRun[] = [];
    for (let run = this.first; run; run = run.next) runs.push(run);
    return runs;
  }
}

/** Promises resolved the next time a count reaches zero; none exist until someone waits. */
class ZeroWaiters {
  private readonly waiting: (() => void)[] = [];

  /** Resolves at once when `count` is zero already, else at the next `release`. */
  wait(count: number): Promise<void> {
    if (count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The count reached zero: every waiter so far is resolved. */
  release(): void {
    if (this.waiting.length > 0) for (const resolve of this.waiting.splice(0)) resolve();
  }
}

/** True when the run was cut by the server's shutdown (not by its client leaving). */
export function cutByShutdown(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof ServerDrainingError;
}
