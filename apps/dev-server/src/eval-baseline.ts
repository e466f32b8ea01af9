import { parseEvalSetResult, type EvalSetResult } from "@agentkit/server/devtools";
import { CliUsageError } from "./cli-usage-error.js";
import { describeIssue } from "./describe-issue.js";

/** A score that fell further below the baseline's than allowed. */
export interface EvalRegression {
  evalSetId: string;
  evalId: string;
  metricName: string;
  baseline: number;
  current: number;
  allowed: number;
}

/**
 * Results of a previous `agentkit eval --output` file: an array of eval set results, or one
 * (also an ADK Python result file), in snake_case (ADK's, current files) or camelCase (older
 * agentkit files).
 */
export function parseBaselineResults(raw: unknown, file: string): EvalSetResult[] {
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((item, i) => {
    try {
      return parseEvalSetResult(item);
    } catch (error) {
      throw new CliUsageError(
        `${file}: [${i}]: expected an eval set result (eval_set_id, eval_case_results): ${describeIssue(error)}`,
      );
    }
  });
}

/**
 * Compares every scored metric of every case with the same case and metric of the baseline:
 * a drop larger than the allowed amount (per metric, else the default) is a regression. Cases
 * or metrics the baseline lacks are new, not regressions.
 */
export function findRegressions(
  current: readonly EvalSetResult[],
  baseline: readonly EvalSetResult[],
  maxRegression: { default: number; perMetric: Record<string, number> },
): EvalRegression[] {
  const before = new Map<string, number>();
  const key = (set: string, evalId: string, metric: string) => JSON.stringify([set, evalId, metric]);
  for (const set of baseline)
    for (const c of set.evalCaseResults)
      for (const m of c.overallEvalMetricResults ?? [])
        if (typeof m.score === "number") before.set(key(set.evalSetId, c.evalId, m.metricName), m.score);
  const regressions: EvalRegression[] = [];
  for (const set of current)
    for (const c of set.evalCaseResults)
      for (const m of c.overallEvalMetricResults) {
        const previous = before.get(key(set.evalSetId, c.evalId, m.metricName));
        if (previous === undefined) continue;
        const allowed = maxRegression.perMetric[m.metricName] ?? maxRegression.default;
        const score = m.score ?? Number.NEGATIVE_INFINITY;
        // A small epsilon: scores that print the same are not a regression.
        if (previous - score > allowed + 1e-9)
          regressions.push({
            evalSetId: set.evalSetId,
            evalId: c.evalId,
            metricName: m.metricName,
            baseline: previous,
            current: m.score ?? Number.NaN,
            allowed,
          });
      }
  return regressions;
}
