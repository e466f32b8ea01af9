// Small statistics for noisy measurements: medians with their spread, and log-log slopes.

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** "median (min-max)" with `digits` decimals; just the value when there is one sample. */
export function spread(xs: readonly number[], digits = 0): string {
  const m = median(xs).toFixed(digits);
  if (xs.length < 2) return m;
  return `${m} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;
}

/**
 * Least-squares slope of log(y) against log(x): the exponent k of y ~ x^k (0: flat,
 * 1: linear). Non-positive values are skipped.
 */
export function logLogSlope(xs: readonly number[], ys: readonly number[]): number {
  const pts = xs.map((x, i) => [x, ys[i]!] as const).filter(([x, y]) => x > 0 && y > 0);
  if (pts.length < 2) return Number.NaN;
  const lx = pts.map(([x]) => Math.log(x));
  const ly = pts.map(([, y]) => Math.log(y));
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length;
  const my = ly.reduce((a, b) => a + b, 0) / ly.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < lx.length; i++) {
    num += (lx[i]! - mx) * (ly[i]! - my);
    den += (lx[i]! - mx) ** 2;
  }
  return num / den;
}
