export type { AgentLoader, LoadedApp } from "./agent-loader.js";
export type { ServerContext } from "./server-context.js";
export { AppNotFoundError, HttpRequestError, ServerDrainingError } from "./errors/server-errors.js";
export type { ReadinessCheck, ReadinessOptions, ReadinessReport } from "./health/readiness.js";
export { statusForError, errorBody } from "./errors/status-for-error.js";
export {
  createAgentServer,
  type AgentServer,
  type AgentServerOptions,
  type ListenOptions,
  type ListeningAddress,
  type ServerStats,
  type WarmUpOptions,
} from "./create-agent-server.js";
export type { AppWarmUp, ServerWarmUp } from "./runs/warm-up-apps.js";
export type { RouterSource } from "./routes/express-app.js";
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
export { consoleLogger, type LogFields, type ServerLogger } from "./server-logger.js";
export { LiveCloseCode, type LiveStats } from "./live/live-socket-server.js";
export {
  createGraphRouter,
  buildAgentDot,
  highlightPairsForEvent,
  type AgentDotOptions,
} from "./graph/index.js";
export {
  createDirectoryAgentLoader,
  AgentLoadError,
  relativizePaths,
  type DirectoryAgentLoaderOptions,
  type LoaderLogger,
  type BuiltInTool,
  type BuiltInToolContext,
  type BuiltInToolFactory,
  lazyBuiltInTool,
  type LazyBuiltInTool,
  type BuiltInCodeExecutorEntry,
  type ImportModule,
  BUILDER_MARKER,
  DEFAULT_BUILDER_POLICY,
  type BuilderPolicy,
} from "./loader/index.js";
export { OAUTH_CALLBACK_PATH } from "./routes/dev-ui-routes.js";
