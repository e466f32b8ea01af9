import { retry, settlesWithin } from "@agentkit/core/internal";
import { AnalyticsCloseTimeoutError, AnalyticsQueueFullError } from "./analytics-errors.js";
import type { AnalyticsRow, AnalyticsSink } from "./analytics-row.js";

export interface AnalyticsRowWriterOptions {
  sink: AnalyticsSink;
  /** Rows per write. */
  batchSize: number;
  /** Longest a row waits before its batch is written. */
  flushIntervalMs: number;
  /** Handed to the sink's `prepare`. */
  clusteringFields: string[];
  autoSchemaUpgrade: boolean;
  retry: { initialDelayMs: number; maxDelayMs: number; maxAttempts: number };
  /**
   * Rows held while the sink is slow or down: queued plus handed to the write chain and not
   * written yet. Beyond it new rows are dropped (counted in `droppedRows`).
   */
  maxQueueSize: number;
  /** Longest `close()` waits for the flush, then for the sink's close. */
  closeTimeoutMs: number;
  /** Told about rows given up (never allowed to throw out of the writer). */
  onError: (error: unknown, info: { droppedRows: number }) => void;
}

/**
 * The write side of the analytics plugin: a bounded queue of rows written in batches in the
 * background (a batch when full, else on a timer), one batch after the other, each with
 * retries; the sink is prepared once before the first write. Nothing here throws into the
 * caller: rows given up are counted in `droppedRows` and reported to `onError`.
 */
export class AnalyticsRowWriter {
  /** Rows dropped because `maxQueueSize` rows were held, a batch failed for good, or a row could not be built. */
  droppedRows = 0;
  /** Rows the sink accepted. */
  writtenRows = 0;

  private readonly options: AnalyticsRowWriterOptions;
  private readonly queue: AnalyticsRow[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private prepared?: Promise<void>;
  private closed = false;
  /** Rows handed to the write chain (batches waiting or being written) and not finished yet. */
  private pendingRows = 0;
  /** Rows dropped since the queue last had room: the first was reported, the rest are reported when it ends. */
  private overflowDrops = 0;
  /** Set when close() timed out: the rows still pending were counted as dropped then. */
  private gaveUp = false;
  private readonly abort = new AbortController();

  constructor(options: AnalyticsRowWriterOptions) {
    this.options = options;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Queues a row; a full batch is written at once. Past `maxQueueSize` rows held (queued, or in
   * batches waiting for or being written by a slow sink) the new row is dropped and counted: the
   * rows held are left as they are (a batch handed to the write chain is written, and retried,
   * whole and in order), and the chain of waiting writes cannot grow past the rows it holds.
   */
  push(row: AnalyticsRow): void {
    if (this.queue.length + this.pendingRows >= this.options.maxQueueSize) {
      this.droppedRows++;
      // Reported when dropping starts, then once for the rest when it stops: never per row.
      if (this.overflowDrops++ === 0)
        this.report(
          new AnalyticsQueueFullError(
            `AnalyticsPlugin: ${this.options.maxQueueSize} rows are waiting for the sink (maxQueueSize); ` +
              "new rows are dropped until it catches up.",
          ),
          1,
        );
      return;
    }
    this.endOverflow();
    this.queue.push(row);
    if (this.queue.length >= this.options.batchSize) this.scheduleBatch();
    else this.ensureTimer();
  }

  /** Counts and reports a row that could not be built. */
  dropUnbuilt(error: unknown): void {
    this.droppedRows++;
    this.report(error, 1);
  }

  /** Writes every queued row now (waits for batches in flight too). */
  async flush(): Promise<void> {
    while (this.queue.length > 0) this.scheduleBatch();
    await this.writing;
  }

  /**
   * Flushes and closes the sink, waiting at most `closeTimeoutMs` for each; past it the sink's
   * signal is aborted and the rows not written are counted in `droppedRows`. Never throws.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.endOverflow();
    clearInterval(this.timer);
    this.timer = undefined;
    const { closeTimeoutMs } = this.options;
    if (!(await settlesWithin(this.flush(), closeTimeoutMs))) {
      const left = this.queue.splice(0).length + this.pendingRows;
      this.gaveUp = true;
      this.droppedRows += left;
      this.report(
        new AnalyticsCloseTimeoutError(
          `AnalyticsPlugin: the sink did not finish writing within ${closeTimeoutMs} ms; ${left} row(s) given up.`,
        ),
        left,
      );
    }
    this.abort.abort(new AnalyticsCloseTimeoutError("AnalyticsPlugin closed."));
    let sinkClose: Promise<void>;
    try {
      sinkClose = Promise.resolve(this.options.sink.close());
    } catch (error) {
      sinkClose = Promise.reject(error as Error);
    }
    sinkClose.catch((error: unknown) => this.report(error, 0));
    if (!(await settlesWithin(sinkClose, closeTimeoutMs))) {
      this.report(
        new AnalyticsCloseTimeoutError(
          `AnalyticsPlugin: the sink's close() did not finish within ${closeTimeoutMs} ms.`,
        ),
        0,
      );
    }
  }

  /** Ends an overflow: reports the rows dropped after the first (which was reported when it began). */
  private endOverflow(): void {
    const rest = this.overflowDrops - 1;
    this.overflowDrops = 0;
    if (rest > 0)
      this.report(
        new AnalyticsQueueFullError(`AnalyticsPlugin: ${rest} more row(s) were dropped while the queue was full.`),
        rest,
      );
  }

  /** Calls `onError`, which must never break the plugin either. */
  private report(error: unknown, droppedRows: number): void {
    try {
      this.options.onError(error, { droppedRows });
    } catch {
      // A failing error handler is ignored.
    }
  }

  private ensureTimer(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(
      () => {
        if (this.queue.length > 0) this.scheduleBatch();
      },
      Math.max(1, this.options.flushIntervalMs),
    );
    this.timer.unref();
  }

  /** Takes one batch off the queue and chains its write after the previous ones. */
  private scheduleBatch(): void {
    const batch = this.queue.splice(0, this.options.batchSize);
    if (batch.length === 0) return;
    this.pendingRows += batch.length;
    this.writing = this.writing.then(async () => {
      try {
        await this.writeWithRetries(batch);
      } finally {
        this.pendingRows -= batch.length;
      }
    });
  }

  private async writeWithRetries(batch: AnalyticsRow[]): Promise<void> {
    try {
      await retry(
        async () => {
          // Closed past its timeout: these rows were counted as dropped and reported then.
          if (this.gaveUp) return;
          await this.ensurePrepared();
          await this.options.sink.writeRows(batch, this.abort.signal);
          if (!this.gaveUp) this.writtenRows += batch.length;
        },
        {
          policy: { ...this.options.retry, jitter: 0 },
          decide: () => ({ retry: !this.gaveUp }),
        },
      );
    } catch (error) {
      if (this.gaveUp) return;
      this.droppedRows += batch.length;
      this.report(error, batch.length);
    }
  }

  /** Prepares the sink once; a failed prepare is tried again by the next attempt. */
  private ensurePrepared(): Promise<void> {
    this.prepared ??= (
      this.options.sink.prepare?.({
        autoSchemaUpgrade: this.options.autoSchemaUpgrade,
        clusteringFields: this.options.clusteringFields,
        signal: this.abort.signal,
      }) ?? Promise.resolve()
    ).catch((error: unknown) => {
      this.prepared = undefined;
      throw error;
    });
    return this.prepared;
  }
}
