// Summaries of repeated runs (`pnpm bench -- --repeat 3`): the lines targets.ts prints, parsed back.
import { median } from "./stats.js";
import { formatFigure } from "./targets.js";

/** `TARGET name: 2.180x (...) (target ≥ 5.000x): FAIL` → its parts (FIGURE lines: no target). */
function parse(line: string) {
  const m =
    /^(TARGET|FIGURE) (.+?): (-?[\d.]+)\s*([a-zA-Z]*)(.*?)(?:\(target ([≥≤]) (-?[\d.]+)[a-zA-Z ]*\): (?:PASS|FAIL))?$/.exec(
      line,
    );
  if (!m) return undefined;
  return {
    kind: m[1]!,
    name: m[2]!,
    value: Number(m[3]),
    unit: m[4]!,
    bound: m[6],
    limit: m[7] ? Number(m[7]) : undefined,
  };
}

/**
 * The TARGET and FIGURE lines of several runs of the benchmarks, one line per target: the
 * median over the runs, their range, and PASS/FAIL on the median.
 */
export function summariseTargets(runs: string[][]): string[] {
  const byName = new Map<string, { line: ReturnType<typeof parse> & {}; values: number[] }>();
  for (const lines of runs)
    for (const line of lines) {
      const p = parse(line);
      if (!p) continue;
      const entry = byName.get(p.name) ?? { line: p, values: [] };
      entry.values.push(p.value);
      byName.set(p.name, entry);
    }
  return [...byName.values()].map(({ line, values }) => {
    const unit = line.unit === "x" ? "x" : line.unit;
    const f = (v: number) => formatFigure(v, unit);
    const m = median(values);
    const range = `(${f(Math.min(...values))} to ${f(Math.max(...values))} over ${values.length} runs)`;
    if (line.limit === undefined) return `${line.kind} ${line.name}: median ${f(m)} ${range}`;
    const pass = line.bound === "≥" ? m >= line.limit : m <= line.limit;
    return `${line.kind} ${line.name}: median ${f(m)} ${range} (target ${line.bound} ${f(line.limit)}): ${pass ? "PASS" : "FAIL"}`;
  });
}
