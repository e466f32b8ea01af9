// The one warm-up policy of the benchmarks that compare warm runtimes (bench:runner, bench:http):
// a fixed warm-up does not fit every runtime, so each runs until its cost per operation settles.

export interface SettleOptions {
  /** Seconds each window lasts (what `window` is asked to run). */
  windowSeconds: number;
  /** Seconds to run at least, settled or not. */
  minSeconds: number;
  /** Seconds after which to stop, settled or not. */
  maxSeconds: number;
  /** The last `span` windows' dearest within this fraction of their cheapest: settled (10%). */
  tolerance?: number;
  /** Windows compared (3). */
  span?: number;
}

/**
 * Runs `window` (one window of work of `windowSeconds`, returning its cost per operation) until
 * the last `span` windows (3) cost within `tolerance` (10%) of the cheapest of them and
 * `minSeconds` have passed, or `maxSeconds` have. Returns the seconds it ran.
 *
 * Three windows, not two in a row: V8 can go on compiling for several seconds while the cost
 * falls by a few percent a window, so two neighbours agree long before the cost stops falling
 * (a `--trace-opt` trace of agentkit's server on 2026-12-02, 1 s windows: 150-170 TurboFan
 * compilations a second in the second and third seconds, still 4-14 a second in the next five,
 * two windows at 175 and 165 µs a flow after 8 s, and 149-165 µs from the tenth second). A fall
 * that continues spans more than the tolerance over three windows.
 */
export async function untilSettled(
  window: (seconds: number) => Promise<number>,
  options: SettleOptions,
): Promise<number> {
  const tolerance = options.tolerance ?? 0.1;
  const span = options.span ?? 3;
  const recent: number[] = [];
  let elapsed = 0;
  while (elapsed < options.maxSeconds) {
    recent.push(await window(options.windowSeconds));
    if (recent.length > span) recent.shift();
    elapsed += options.windowSeconds;
    const settled = recent.length === span && Math.max(...recent) <= (1 + tolerance) * Math.min(...recent);
    if (settled && elapsed >= options.minSeconds) break;
  }
  return elapsed;
}
