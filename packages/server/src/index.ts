export type { AgentLoader, LoadedApp } from "./agent-loader.js";
export type { ServerContext } from "./server-context.js";
export { AppNotFoundError, HttpRequestError } from "./errors/server-errors.js";
export { statusForError, errorBody } from "./errors/status-for-error.js";
export {
  createAgentServer,
  type AgentServer,
  type AgentServerOptions,
  type ListenOptions,
  type ListeningAddress,
  type ServerStats,
} from "./create-agent-server.js";
export {
  DEFAULT_BODY_LIMIT,
  DEFAULT_SERVER_LIMITS,
  parseByteSize,
  type LiveLimits,
  type ResolvedServerLimits,
  type ServerLimits,
} from "./http/server-limits.js";
export { createStaticAgentLoader, type StaticAgentLoaderOptions } from "./static-agent-loader.js";
export type { ServerCorsOptions } from "./http/cors-options.js";
export { isLoopbackHost } from "./http/host-guard.js";
export {
  ADMIN_SCOPE,
  isAdmin,
  principalOf,
  setPrincipal,
  BUILT_IN_ROUTE_RULES,
  bodyUserOf,
  liveUserOf,
  reasoningEngineUserOf,
  apiKeyAuthenticator,
  parseApiKeyText,
  MIN_API_KEY_LENGTH,
  jwtAuthenticator,
  ASYMMETRIC_JWT_ALGORITHMS,
  AuthenticationError,
  AuthenticationUnavailableError,
  ForbiddenError,
  bearerTokenOf,
  WEBSOCKET_BEARER_PREFIX,
  WEBSOCKET_PROTOCOL,
  type Principal,
  type Authenticator,
  type ServerAuthOptions,
  type RouteAccess,
  type RouteRule,
  type ApiKeyAuthOptions,
  type ApiKeyEntry,
  type JwtAuthOptions,
  type AuthFailure,
} from "./auth/index.js";
export type { DevUiOptions } from "./routes/dev-ui-routes.js";
export type { AppInfo } from "./routes/app-routes.js";
export { consoleLogger, type ServerLogger } from "./server-logger.js";
export { SessionRunQueue, type ReleaseRun } from "./runs/session-run-queue.js";
export { LiveCloseCode, type LiveStats } from "./live/live-socket-server.js";
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
  createGraphRouter,
  buildAgentDot,
  highlightPairsForEvent,
  describeApp,
  describeAgent,
  type AgentDotOptions,
  type AppStructure,
  type StructureNode,
} from "./graph/index.js";
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
export {
  createDirectoryAgentLoader,
  AgentLoadError,
  relativizePaths,
  MODULE_ENTRY_FILES,
  YAML_ENTRY_FILES,
  type DirectoryAgentLoaderOptions,
  type LoaderLogger,
  type BuiltInTool,
  type BuiltInToolContext,
  type BuiltInCodeExecutorEntry,
  type ImportModule,
  BUILDER_MARKER,
  DEFAULT_BUILDER_POLICY,
  type BuilderPolicy,
} from "./loader/index.js";
export { OAUTH_CALLBACK_PATH } from "./routes/dev-ui-routes.js";
