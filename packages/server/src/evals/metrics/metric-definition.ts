import type { z } from "zod";
import type { EvalCase, Invocation } from "../eval-types.js";

/** The metric catalogue entry the dev UI reads from GET metrics-info (ADK's MetricInfo). */
export interface MetricInfo {
  metricName: string;
  description: string;
  metricValueInfo: { interval: { minValue: number; maxValue: number; openAtMin: boolean; openAtMax: boolean } };
}

/** A metric's verdict on one invocation (or a whole case): a score, or why there is none. */
export type InvocationScore = { score: number; details?: Record<string, unknown> } | { notEvaluated: string };

/** What a metric scores: one case's turns, the reference turns, and the metric's criterion. */
export interface MetricInput<C = BaseCriterion> {
  /** The turns the agent produced. */
  actual: Invocation[];
  /** The reference turns, aligned with `actual`; absent for a scenario case. */
  expected?: Invocation[];
  /** The validated criterion (threshold included when one was given). */
  criterion: C;
  evalCase?: EvalCase;
  signal?: AbortSignal;
}

/** A metric's verdicts: one per actual turn, and the case's overall one (default: the mean). */
export interface MetricOutput {
  perInvocation: InvocationScore[];
  overall?: InvocationScore;
}

/** Every criterion has a threshold: the gate (absent: informational, where the metric allows it). */
export interface BaseCriterion {
  threshold?: number;
}

export interface EvalMetricDefinition<C extends BaseCriterion = BaseCriterion> {
  readonly info: MetricInfo;
  /** `undefined` when the metric can run; else why not (e.g. no judge model configured). */
  readonly unavailableReason?: string;
  /** Validates (and fills defaults of) the metric's criterion; the threshold is included. */
  readonly criterionSchema: z.ZodType<C>;
  /** Lower scores are better (counts, latency, cost): the score passes at or below the threshold. */
  readonly lowerIsBetter?: boolean;
  /** The metric may run without a threshold, reporting an INFORMATIONAL figure. */
  readonly informational?: boolean;
  /** The threshold used when the run names none. */
  readonly defaultThreshold?: number;
  evaluateInvocations(input: MetricInput<C>): Promise<MetricOutput>;
  /**
   * One invocation with the default criterion (the older per-invocation interface, kept for
   * callers that score turn by turn).
   */
  evaluate(actual: Invocation, expected: Invocation, signal?: AbortSignal): Promise<InvocationScore>;
}

export const UNIT_INTERVAL = { minValue: 0, maxValue: 1, openAtMin: false, openAtMax: false };

/**
 * Builds a definition from its parts, adding the per-invocation `evaluate` over
 * `evaluateInvocations` and the default criterion.
 */
export function defineMetric<C extends BaseCriterion>(
  parts: Omit<EvalMetricDefinition<C>, "evaluate">,
): EvalMetricDefinition<C> {
  return {
    ...parts,
    async evaluate(actual, expected, signal) {
      const criterion = parts.criterionSchema.parse({ threshold: parts.defaultThreshold });
      const out = await parts.evaluateInvocations({ actual: [actual], expected: [expected], criterion, signal });
      return out.perInvocation[0] ?? { notEvaluated: "the metric gave no verdict" };
    },
  };
}

/** Per-invocation scoring with one function, for metrics that look at one turn at a time. */
export async function eachInvocation(
  input: MetricInput<unknown & BaseCriterion>,
  score: (actual: Invocation, expected: Invocation | undefined, index: number) => Promise<InvocationScore>,
): Promise<MetricOutput> {
  const perInvocation: InvocationScore[] = [];
  for (const [i, actual] of input.actual.entries()) {
    input.signal?.throwIfAborted();
    perInvocation.push(await score(actual, input.expected?.[i], i));
  }
  return { perInvocation };
}

/** The mean of the scored verdicts, or why there is none. */
export function meanOf(verdicts: InvocationScore[]): InvocationScore {
  const scores = verdicts.flatMap((v) => ("score" in v ? [v.score] : []));
  const skipped = verdicts.find((v): v is { notEvaluated: string } => "notEvaluated" in v);
  if (skipped) return skipped;
  if (scores.length === 0) return { notEvaluated: "the case has no invocations to compare" };
  return { score: scores.reduce((a, b) => a + b, 0) / scores.length };
}

/** NOT_EVALUATED for a turn without a reference one. */
export const NO_REFERENCE: InvocationScore = {
  notEvaluated: "needs a reference turn (the case has a conversation_scenario, not a conversation)",
};
