export { createEvalRouter, DEFAULT_EVAL_METRICS, type EvalRouterOptions } from "./eval-router.js";
export { createInMemoryEvalStore, type EvalStore } from "./eval-store.js";
export { createFileEvalStore, type FileEvalStoreOptions } from "./file-eval-store.js";
export {
  createEvalMetrics,
  type EvalMetricsOptions,
  type EvalMetricRegistry,
  type EvalMetricDefinition,
  type InvocationScore,
  type MetricInput,
  type MetricOutput,
} from "./eval-metrics.js";
export {
  parseEvalConfig,
  loadEvalConfig,
  evalMetricsFromConfig,
  withCustomMetrics,
  DEFAULT_EVAL_CONFIG,
  type EvalConfig,
  type CustomMetricConfig,
  type UserSimulatorConfig,
  type ParseEvalConfigOptions,
} from "./eval-config.js";
export { scoreEvalCase, checkEvalMetrics, type ScoreEvalCaseOptions, type EvalCaseScores } from "./score-eval-case.js";
export type { CustomMetricFunction, CustomMetricScope } from "./metrics/custom-metric.js";
export type { ArgMatcher, JudgeModelOptions, TrajectoryCriterion } from "./metrics/criteria.js";
export type { BaseCriterion } from "./metrics/metric-definition.js";
export type { RubricScore } from "./metrics/rubric-verdicts.js";
export { splitSentences } from "./metrics/hallucinations-v1.js";
export { rouge1F1, tokenize } from "./rouge.js";
export { runEvalSet, EVAL_SESSION_PREFIX, type EvalProgress, type RunEvalSetOptions } from "./run-eval-set.js";
export { invocationsFromSession } from "./invocations-from-events.js";
export { toolUsesOf } from "./invocation-data.js";
export { ToolSimulationPlugin, type ToolSimulation, type ToolSimulationRule } from "./tool-simulation-plugin.js";
export {
  USER_SIMULATOR_STOP_SIGNAL,
  type UserSimulatorOptions,
  type UserSimulatorResolver,
} from "./user-simulator.js";
export {
  EvalStatus,
  parseEvalSet,
  type EvalSet,
  type EvalCase,
  type ConversationScenario,
  type Invocation,
  type IntermediateData,
  type Rubric,
  type EvalMetric,
  type EvalMetricResult,
  type EvalMetricResultPerInvocation,
  type EvalCaseResult,
  type EvalSetResult,
  type RunEvalResult,
} from "./eval-types.js";
export { parseEvalSetResult, evalSetResultToAdkJson } from "./eval-result-json.js";
export {
  EvalSetNotFoundError,
  EvalSetAlreadyExistsError,
  EvalCaseNotFoundError,
  EvalCaseAlreadyExistsError,
  EvalResultNotFoundError,
  InvalidEvalIdError,
  InvalidEvalConfigError,
  UnknownMetricError,
} from "./eval-errors.js";
