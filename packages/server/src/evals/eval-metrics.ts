import type { BaseLlm } from "@agentkit/core";
import { efficiencyMetrics, type EfficiencyOptions } from "./metrics/efficiency-metrics.js";
import { finalResponseMatchV2Metric } from "./metrics/final-response-match-v2.js";
import { hallucinationsV1Metric } from "./metrics/hallucinations-v1.js";
import { JudgePool, type JudgeOptions } from "./metrics/judge-pool.js";
import type { EvalMetricDefinition } from "./metrics/metric-definition.js";
import { perTurnUserSimulatorQualityMetric } from "./metrics/per-turn-user-simulator-quality.js";
import { responseEvaluationScoreMetric } from "./metrics/response-evaluation-score.js";
import { responseMatchMetric } from "./metrics/response-match.js";
import {
  multiTurnTrajectoryQualityMetric,
  rubricFinalResponseQualityMetric,
  rubricToolUseQualityMetric,
} from "./metrics/rubric-based-metrics.js";
import { toolTrajectoryMetric } from "./metrics/tool-trajectory.js";

export type {
  EvalMetricDefinition,
  InvocationScore,
  MetricInput,
  MetricOutput,
} from "./metrics/metric-definition.js";

export interface EvalMetricsOptions extends JudgeOptions, EfficiencyOptions {
  /** The default judge (criteria without `judge_model`); enables the LLM-judged metrics. */
  judgeModel?: BaseLlm;
}

/** A metric registry: metric name → definition (what `createEvalMetrics` returns). */
export type EvalMetricRegistry = Map<string, EvalMetricDefinition>;

/**
 * Every built-in metric, in one registry: trajectory and response match, the LLM-judged ones
 * (usable with a judge model, sharing one bound on concurrent judge calls) and efficiency.
 */
export function createEvalMetrics(options: EvalMetricsOptions = {}): EvalMetricRegistry {
  const judges = new JudgePool(options);
  // Each definition is typed by its own criterion; the registry holds them by their base type.
  const all = [
    toolTrajectoryMetric,
    responseMatchMetric,
    finalResponseMatchV2Metric(judges),
    responseEvaluationScoreMetric(judges),
    rubricFinalResponseQualityMetric(judges),
    rubricToolUseQualityMetric(judges),
    multiTurnTrajectoryQualityMetric(judges),
    hallucinationsV1Metric(judges),
    perTurnUserSimulatorQualityMetric(judges),
    ...efficiencyMetrics(options),
  ] as unknown as EvalMetricDefinition[];
  return new Map(all.map((m) => [m.info.metricName, m]));
}
