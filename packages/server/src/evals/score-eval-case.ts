import { UnknownMetricError } from "./eval-errors.js";
import { resolveCriterion } from "./eval-config.js";
import {
  EvalStatus,
  type EvalCase,
  type EvalMetric,
  type EvalMetricResult,
  type EvalMetricResultPerInvocation,
  type Invocation,
} from "./eval-types.js";
import { judged } from "./metrics/judge-pool.js";
import {
  meanOf,
  type BaseCriterion,
  type EvalMetricDefinition,
  type InvocationScore,
} from "./metrics/metric-definition.js";

export interface ScoreEvalCaseOptions {
  evalCase: EvalCase;
  /** The turns the agent produced (fewer than the reference ones when the run failed). */
  actual: Invocation[];
  metrics: readonly EvalMetric[];
  definitions: ReadonlyMap<string, EvalMetricDefinition>;
  /** Why the agent run failed: every metric is NOT_EVALUATED and the case FAILED. */
  failure?: string;
  signal?: AbortSignal;
}

export interface EvalCaseScores {
  finalEvalStatus: EvalStatus;
  overallEvalMetricResults: EvalMetricResult[];
  evalMetricResultPerInvocation: EvalMetricResultPerInvocation[];
}

/**
 * Validates a run's metrics before anything runs: known names and valid criteria. Throws
 * UnknownMetricError or InvalidEvalConfigError (400s) naming the metric.
 */
export function checkEvalMetrics(
  metrics: readonly EvalMetric[],
  definitions: ReadonlyMap<string, EvalMetricDefinition>,
): void {
  for (const metric of metrics) {
    const definition = definitions.get(metric.metricName);
    if (!definition) throw new UnknownMetricError(metric.metricName, [...definitions.keys()], "eval_metrics");
    resolveCriterion(metric, definition);
  }
}

/**
 * Scores one case: each metric over the actual turns (against the reference turns of a
 * `conversation` case), per turn and overall, each verdict against its threshold. A metric
 * that could not run is NOT_EVALUATED (with the reason in `details.reason`), a figure without
 * a threshold INFORMATIONAL; the case FAILS when a metric fails or the run failed, PASSES
 * when some metric passed, and is NOT_EVALUATED otherwise.
 */
export async function scoreEvalCase(options: ScoreEvalCaseOptions): Promise<EvalCaseScores> {
  const { evalCase, actual, failure } = options;
  const expected = evalCase.conversation;
  const rows: EvalMetricResultPerInvocation[] = (expected ?? actual).map((reference, i) => {
    const turn = actual[i] ?? { invocationId: "", userContent: reference.userContent, creationTimestamp: 0 };
    return expected
      ? { actualInvocation: turn, expectedInvocation: reference, evalMetricResults: [] }
      : { actualInvocation: turn, evalMetricResults: [] };
  });
  const overall: EvalMetricResult[] = [];
  for (const metric of options.metrics) {
    options.signal?.throwIfAborted();
    const definition = options.definitions.get(metric.metricName);
    if (!definition) throw new UnknownMetricError(metric.metricName, [...options.definitions.keys()], "eval_metrics");
    const criterion = resolveCriterion(metric, definition);
    const reason = failure ?? definition.unavailableReason;
    if (reason) {
      overall.push(result(metric, criterion, definition, { notEvaluated: reason }));
      for (const row of rows)
        row.evalMetricResults.push(result(metric, criterion, definition, { notEvaluated: reason }));
      continue;
    }
    const output = await judged(options.signal, () =>
      definition.evaluateInvocations({
        actual: rows.map((r) => r.actualInvocation),
        ...(expected ? { expected } : {}),
        criterion,
        evalCase,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    );
    if ("notEvaluated" in output) {
      overall.push(result(metric, criterion, definition, output));
      continue;
    }
    for (const [i, verdict] of output.perInvocation.entries())
      rows[i]?.evalMetricResults.push(result(metric, criterion, definition, verdict));
    overall.push(result(metric, criterion, definition, output.overall ?? meanOf(output.perInvocation)));
  }
  const statuses = overall.map((r) => r.evalStatus);
  const finalEvalStatus =
    failure || statuses.includes(EvalStatus.FAILED)
      ? EvalStatus.FAILED
      : statuses.includes(EvalStatus.PASSED)
        ? EvalStatus.PASSED
        : EvalStatus.NOT_EVALUATED;
  return { finalEvalStatus, overallEvalMetricResults: overall, evalMetricResultPerInvocation: rows };
}

function result(
  metric: EvalMetric,
  criterion: BaseCriterion,
  definition: EvalMetricDefinition,
  verdict: InvocationScore,
): EvalMetricResult {
  const out: EvalMetricResult = { metricName: metric.metricName, evalStatus: EvalStatus.NOT_EVALUATED };
  if (criterion.threshold !== undefined) out.threshold = criterion.threshold;
  if (metric.criterion) out.criterion = metric.criterion;
  if ("notEvaluated" in verdict) {
    out.details = { reason: verdict.notEvaluated };
    return out;
  }
  out.score = verdict.score;
  const threshold = criterion.threshold;
  out.evalStatus =
    threshold === undefined
      ? EvalStatus.INFORMATIONAL
      : (definition.lowerIsBetter ? verdict.score <= threshold : verdict.score >= threshold)
        ? EvalStatus.PASSED
        : EvalStatus.FAILED;
  if (verdict.details) out.details = verdict.details;
  return out;
}
