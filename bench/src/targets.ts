// One line per target of the performance issue: the measured figure, the target and PASS/FAIL.
// Informational only: a missed target never changes the exit code. `run-all.ts` collects the
// lines (they start with "TARGET ") into one summary.

export interface Target {
  /** What is measured, e.g. "in-process invocations/s, agentkit / ADK". */
  name: string;
  /** The figure (the median of the rounds). */
  value: number;
  /** "at least" (higher is better) or "at most". */
  bound: "at least" | "at most";
  limit: number;
  /** How the figure is written: `x` for ratios (default), `ms`, `` for a bare number. */
  unit?: string;
  /** The spread or a short note, printed after the figure. */
  detail?: string;
}

/** A figure as the TARGET lines write it: `2.180x`, `12.3x`, `0.850 ms`, `302 MB`. */
export const formatFigure = (v: number, unit: string) => {
  const digits = v >= 100 ? v.toFixed(0) : v >= 10 && unit === "x" ? v.toFixed(1) : v.toFixed(3);
  return unit === "x" ? `${digits}x` : unit === "" ? digits : `${digits} ${unit}`;
};

/** Prints `TARGET <name>: <value> [detail] (target ≥|≤ limit): PASS|FAIL` and returns it. */
export function reportTarget(target: Target): string {
  const unit = target.unit ?? "x";
  const pass = Number.isFinite(target.value)
    ? target.bound === "at least"
      ? target.value >= target.limit
      : target.value <= target.limit
    : false;
  const line =
    `TARGET ${target.name}: ${formatFigure(target.value, unit)}${target.detail ? ` ${target.detail}` : ""} ` +
    `(target ${target.bound === "at least" ? "≥" : "≤"} ${formatFigure(target.limit, unit)}): ${pass ? "PASS" : "FAIL"}`;
  console.log(line);
  return line;
}
