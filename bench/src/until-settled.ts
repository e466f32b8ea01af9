// The one warm-up policy of the benchmarks that compare warm runtimes (bench:runner, bench:http):
// a fixed warm-up does not fit every runtime, so each runs until its cost per operation settles.

export interface SettleOptions {
  /** Seconds each window lasts (what `window` is asked to run). */
  windowSeconds: number;
  /** Seconds to run at least, settled or not. */
  minSeconds: number;
  /** Seconds after which to stop, settled or not. */
  maxSeconds: number;
  /** Two windows in a row whose costs differ by at most this fraction of the first: settled. */
  tolerance?: number;
}

/**
 * Runs `window` (one window of work of `windowSeconds`, returning its cost per operation) until
 * two windows in a row cost within `tolerance` (10%) of each other and `minSeconds` have passed,
 * or `maxSeconds` have. Returns the seconds it ran.
 */
export async function untilSettled(
  window: (seconds: number) => Promise<number>,
  options: SettleOptions,
): Promise<number> {
  const tolerance = options.tolerance ?? 0.1;
  let elapsed = 0;
  let previous: number | undefined;
  while (elapsed < options.maxSeconds) {
    const cost = await window(options.windowSeconds);
    elapsed += options.windowSeconds;
    const settled = previous !== undefined && Math.abs(cost - previous) <= tolerance * previous;
    if (settled && elapsed >= options.minSeconds) break;
    previous = cost;
  }
  return elapsed;
}
