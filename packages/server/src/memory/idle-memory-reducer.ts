import { ConfigurationError } from "@agentkit/core";
import { collectAllGarbage } from "./collect-all-garbage.js";

/** What the reducer watches and does; the timer is replaceable so tests can tick it. */
export interface IdleMemoryReducerOptions {
  /** How long the server must be quiet (no request arriving, nothing in flight) before it collects. */
  afterMs: number;
  /** True when nothing is in progress: no request in flight, no run, no live socket. */
  isIdle(): boolean;
  /** A count that grows with every request that arrives. */
  arrivals(): number;
  /** Called after each reduction with what it took and gave back (for the server's log). */
  onReduced?(report: MemoryReduction): void;
  /** The collection (default: `collectAllGarbage`). */
  collect?: () => void;
  /** Calls `tick` every `ms` until stopped (default: an unref'd `setInterval`). */
  every?: (ms: number, tick: () => void) => () => void;
}

/** One reduction: its duration and the process's resident memory before and after. */
export interface MemoryReduction {
  durationMs: number;
  rssBefore: number;
  rssAfter: number;
}

/**
 * Gives memory back once a server has gone quiet. A burst of traffic grows V8's young generation
 * (to 128 MB here) and V8 never shrinks it again by itself, so a server that served 10,000
 * sessions kept about 100 MB more resident memory than it needed for as long as it lived. After
 * `afterMs` with no request arriving and nothing in progress, this runs one full collection that
 * hands those pages back; then nothing more until traffic comes and goes again. It checks every
 * `afterMs` by comparing a request counter, so requests cost no timer of their own; a quiet spell
 * is noticed between `afterMs` and twice that.
 */
export class IdleMemoryReducer {
  private readonly options: IdleMemoryReducerOptions;
  private readonly stop: () => void;
  private seen: number;
  /** The arrival count at the last reduction: the next one waits for new requests. */
  private reducedAt: number;
  private count = 0;

  constructor(options: IdleMemoryReducerOptions) {
    this.options = options;
    // A server that has served nothing has nothing to give back.
    this.seen = options.arrivals();
    this.reducedAt = this.seen;
    this.stop = (options.every ?? everyUnref)(options.afterMs, () => this.tick());
  }

  /** Reductions run so far. */
  get reductions(): number {
    return this.count;
  }

  /** Stops checking (the server is closing). */
  close(): void {
    this.stop();
  }

  private tick(): void {
    const arrivals = this.options.arrivals();
    const quiet = arrivals === this.seen;
    this.seen = arrivals;
    if (!quiet || arrivals === this.reducedAt || !this.options.isIdle()) return;
    this.reducedAt = arrivals;
    this.count += 1;
    const rssBefore = process.memoryUsage.rss();
    const started = performance.now();
    (this.options.collect ?? collectAllGarbage)();
    this.options.onReduced?.({
      durationMs: performance.now() - started,
      rssBefore,
      rssAfter: process.memoryUsage.rss(),
    });
  }
}

function everyUnref(ms: number, tick: () => void): () => void {
  const timer = setInterval(tick, ms);
  timer.unref();
  return () => clearInterval(timer);
}

/** Milliseconds of quiet before a reduction (`AgentServerOptions.reduceMemoryWhenIdle`); undefined when it is off. */
export function idleReductionDelay(option: boolean | { afterMs?: number } | undefined): number | undefined {
  if (option === false) return undefined;
  const afterMs = option === undefined || option === true ? DEFAULT_AFTER_MS : (option.afterMs ?? DEFAULT_AFTER_MS);
  if (!Number.isFinite(afterMs) || afterMs <= 0) {
    throw new ConfigurationError(
      `reduceMemoryWhenIdle.afterMs must be a positive number of milliseconds, not ${afterMs}.`,
    );
  }
  return afterMs;
}

const DEFAULT_AFTER_MS = 30_000;

/** The server's log line for one reduction. */
export function describeReduction(afterMs: number, { durationMs, rssBefore, rssAfter }: MemoryReduction): string {
  return (
    `Idle for ${afterMs} ms: a full collection took ${durationMs.toFixed(0)} ms, ` +
    `resident memory ${mib(rssBefore)} → ${mib(rssAfter)} MiB`
  );
}

function mib(bytes: number): string {
  return (bytes / 1_048_576).toFixed(0);
}
