export { createEvalRouter, DEFAULT_EVAL_METRICS, type EvalRouterOptions } from "./eval-router.js";
export { createInMemoryEvalStore, type EvalStore } from "./eval-store.js";
export { createFileEvalStore, type FileEvalStoreOptions } from "./file-eval-store.js";
export { createEvalMetrics, type EvalMetricDefinition } from "./eval-metrics.js";
export { rouge1F1, tokenize } from "./rouge.js";
export { runEvalSet, EVAL_SESSION_PREFIX } from "./run-eval-set.js";
export { invocationsFromSession } from "./invocations-from-events.js";
export {
  EvalStatus,
  type EvalSet,
  type EvalCase,
  type Invocation,
  type EvalMetric,
  type EvalMetricResult,
  type EvalCaseResult,
  type EvalSetResult,
  type RunEvalResult,
} from "./eval-types.js";
export {
  EvalSetNotFoundError,
  EvalSetAlreadyExistsError,
  EvalCaseNotFoundError,
  EvalCaseAlreadyExistsError,
  EvalResultNotFoundError,
  InvalidEvalIdError,
  UnknownMetricError,
} from "./eval-errors.js";
