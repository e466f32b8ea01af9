// `@agentkit/server/devtools`: the dev tooling a local developer uses (traces and the debug
// router, evals, the agent builder, agent tests, telemetry consent). A production
// API server imports only the root entry and so never loads these modules or OpenTelemetry;
// `agentkit web` mounts them with `server.mountDevTools(...)` (docs/devtools.md).
export {
  createTraceRecorder,
  createDebugRouter,
  TracingPlugin,
  TraceStore,
  type TraceRecorder,
  type TraceRecorderOptions,
  type TraceSource,
  type TraceOwner,
  type TraceStoreOptions,
  type EventTraceAttributes,
  type DebugRouterOptions,
  type SpanJson,
} from "./telemetry/index.js";
export {
  createEvalRouter,
  createFileEvalStore,
  createInMemoryEvalStore,
  createEvalMetrics,
  runEvalSet,
  rouge1F1,
  EvalStatus,
  DEFAULT_EVAL_METRICS,
  EvalSetNotFoundError,
  EvalSetAlreadyExistsError,
  EvalCaseNotFoundError,
  EvalCaseAlreadyExistsError,
  EvalResultNotFoundError,
  InvalidEvalIdError,
  UnknownMetricError,
  type EvalRouterOptions,
  type EvalStore,
  type FileEvalStoreOptions,
  type EvalMetricDefinition,
  type EvalSet,
  type EvalCase,
  type Invocation,
  type EvalMetric,
  type EvalMetricResult,
  type EvalCaseResult,
  type EvalSetResult,
  type RunEvalResult,
} from "./evals/index.js";
export { createBuilderRouter, type BuilderRouterOptions } from "./dev/builder-router.js";
export { createAgentTestsRouter, type AgentTestsRouterOptions } from "./dev/agent-tests-router.js";
export { AgentTestError, replayAgentTest, rebuildAgentTest, type ReplayOutcome } from "./dev/agent-test-replay.js";
export {
  createTelemetryRouter,
  fileTelemetryConsent,
  memoryTelemetryConsent,
  type TelemetryConsentStore,
} from "./dev/telemetry-consent.js";
