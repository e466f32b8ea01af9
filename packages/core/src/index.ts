// Public API of @agentkit/core. Everything exported is listed by name; internals stay internal.

export { VERSION } from "./version.js";

// Errors
export { AgentKitError, ConfigurationError, type AgentKitErrorOptions } from "./errors/agentkit-error.js";
export {
  SessionError,
  SessionNotFoundError,
  SessionAlreadyExistsError,
  StaleSessionError,
  InvalidSessionKeyError,
  SessionBusyError,
} from "./errors/session-errors.js";
export {
  LlmCallsLimitExceededError,
  RunAbortedError,
  ModelError,
  ToolError,
  InvalidUserMessageError,
  NothingToResumeError,
  NotResumableError,
} from "./errors/run-errors.js";
export { InvalidArtifactNameError, InvalidArtifactScopeError } from "./errors/artifact-errors.js";
export {
  BudgetExceededError,
  BUDGET_ERROR_CODES,
  type BudgetKind,
  type BudgetScope,
} from "./errors/budget-errors.js";

// Retries (the loop is in @agentkit/core/internal; models and plugins take a policy)
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./concurrency/retry.js";

// Content
export {
  createTextContent,
  createUserContent,
  getTextOf,
  type Blob,
  type FileData,
  type FunctionCall,
  type FunctionResponse,
  type ExecutableCode,
  type CodeExecutionResult,
  type VideoMetadata,
  type Part,
  type Content,
} from "./content/content.js";
export {
  FinishReason,
  type Schema,
  type FunctionDeclaration,
  type Tool,
  type ThinkingConfig,
  type SpeechConfig,
  type GenerateContentConfig,
  type ModalityTokenCount,
  type UsageMetadata,
  type Transcription,
} from "./content/generate-content-config.js";

// Events
export {
  createEvent,
  nowSeconds,
  newEventId,
  newInvocationId,
  isFinalResponse,
  getFunctionCalls,
  getFunctionResponses,
  hasTrailingCodeExecutionResult,
  type Event,
  type EventInit,
  type NodeInfo,
  type NodeRunStatus,
} from "./events/event.js";
export {
  createEventActions,
  mergeEventActions,
  type EventActions,
  type EventCompaction,
  type ToolConfirmation,
  type InputRequest,
  type RouteValue,
} from "./events/event-actions.js";
export {
  eventToJson,
  eventToJsonText,
  eventFromJson,
  contentFromJson,
  toSeconds,
  normalizeBase64,
  InvalidJsonError,
} from "./events/event-json.js";

// Sessions and state
export {
  sessionToJson,
  sessionToJsonText,
  sessionFromJson,
  sessionKeyToJson,
  sessionKeyFromJson,
  filterEvents,
  type Session,
  type SessionKey,
  type GetSessionConfig,
  type ListSessionsResponse,
  type ListEventsResponse,
} from "./sessions/session.js";
export {
  State,
  StatePrefix,
  APP_PREFIX,
  USER_PREFIX,
  TEMP_PREFIX,
  type ReadonlyState,
  type StateScope,
} from "./sessions/state.js";

export { StateKeyNotAllowedError } from "./sessions/client-state-policy.js";

export {
  BaseSessionService,
  type CreateSessionRequest,
  type GetSessionRequest,
  type ListSessionsRequest,
  type DeleteSessionRequest,
  type ListEventsRequest,
  type AppendEventRequest,
  type EventWrite,
  type StoredEvent,
} from "./sessions/base-session-service.js";
export type { SessionLock, SessionLockKey, SessionLockOptions, ReleaseSessionLock } from "./sessions/session-lock.js";

// Artifacts and memory
export {
  BaseArtifactService,
  isUserScopedFilename,
  type ArtifactScope,
  type SaveArtifactRequest,
  type LoadArtifactRequest,
  type ArtifactRequest,
  type ArtifactVersion,
} from "./artifacts/base-artifact-service.js";
export {
  BaseMemoryService,
  type MemoryEntry,
  type SearchMemoryResponse,
  type SearchMemoryRequest,
} from "./memory/base-memory-service.js";

// Models
export {
  BaseLlm,
  type BaseLlmConnection,
  type BaseLlmOptions,
  type GenerateContentOptions,
} from "./models/base-llm.js";
export {
  createLlmRequest,
  appendInstructions,
  appendTools,
  setOutputSchema,
  getSystemInstructionText,
  type LlmRequest,
  type LiveConnectConfig,
  type ContextCacheConfig,
} from "./models/llm-request.js";
export type { LlmResponse } from "./models/llm-response.js";
export { ModelRegistry, type ModelFactory, type ModelRegistrationOptions } from "./models/model-registry.js";

// Agents and contexts
export { BaseAgent, type BaseAgentOptions } from "./agents/base-agent.js";
export { InvocationContext } from "./context/invocation-context.js";
export { ReadonlyContext } from "./context/readonly-context.js";
export { CallbackContext } from "./context/callback-context.js";
export type {
  BeforeAgentCallback,
  AfterAgentCallback,
  BeforeModelCallback,
  AfterModelCallback,
  OnModelErrorCallback,
  BeforeToolCallback,
  AfterToolCallback,
  OnToolErrorCallback,
} from "./agents/callbacks.js";
export {
  StreamingMode,
  ToolExecutionMode,
  type RunConfig,
  type ResolvedRunConfig,
  type AudioTranscriptionConfig,
} from "./agents/run-config.js";
export { LiveRequestQueue, type LiveRequest } from "./agents/live-request-queue.js";

// Tools
export { BaseTool, type BaseToolOptions, type ToolRunRequest } from "./tools/base-tool.js";
export {
  BaseToolset,
  isToolset,
  type ToolFilter,
  type BaseToolsetOptions,
  type ToolUnion,
} from "./tools/base-toolset.js";
export { ToolContext } from "./context/tool-context.js";

// Code executors (implementations live in @agentkit/tools)
export {
  BaseCodeExecutor,
  type BaseCodeExecutorOptions,
  type CodeExecutionFile,
  type CodeExecutionInput,
  type CodeExecutorResult,
  type Delimiters,
} from "./code-executors/base-code-executor.js";

// Plugins
export { BasePlugin, type PluginHookName } from "./plugins/base-plugin.js";
export type {
  UserMessageHookArgs,
  BeforeRunHookArgs,
  EventHookArgs,
  AfterRunHookArgs,
  AgentHookArgs,
  BeforeModelHookArgs,
  AfterModelHookArgs,
  ModelErrorHookArgs,
  BeforeToolHookArgs,
  AfterToolHookArgs,
  ToolErrorHookArgs,
  BeforeNodeHookArgs,
  AfterNodeHookArgs,
} from "./plugins/plugin-hook-args.js";
export { PluginManager, PluginError } from "./plugins/plugin-manager.js";

// In-memory services (re-exported by @agentkit/sessions and @agentkit/artifacts)
export { InMemorySessionService } from "./sessions/in-memory-session-service.js";
export { InMemoryArtifactService } from "./artifacts/in-memory-artifact-service.js";

export { InMemoryMemoryService } from "./memory/in-memory-memory-service.js";

// Function tools (FunctionTool, LongRunningFunctionTool, exitLoopTool)
export {
  FunctionTool,
  type FunctionToolOptions,
  type ToolParameters,
  type ToolArgs,
  type JsonObjectSchema,
  type ConfirmationPredicate,
} from "./tools/function-tool.js";
export { LongRunningFunctionTool } from "./tools/long-running-function-tool.js";
export { exitLoopTool } from "./tools/exit-loop-tool.js";

// Usage, cost and budgets
export {
  emptyRollup,
  tokensOf,
  readRollup,
  type TokenUsage,
  type ModelUsage,
  type UsageRollup,
} from "./usage/usage-rollup.js";
export {
  PriceTable,
  DEFAULT_MODEL_PRICES,
  DEFAULT_PRICES_AS_OF,
  type ModelPrice,
  type PriceTableOptions,
} from "./usage/price-table.js";
export { resolveBudget, type Budget, type UsageLimits } from "./usage/budget.js";
export {
  UsageTracker,
  type UsageTrackerOptions,
  type UsageSnapshot,
  type ModelCallRecorder,
} from "./usage/usage-tracker.js";
export { sessionUsageFromEvents, type SessionUsage, type InvocationUsage } from "./usage/session-usage.js";
export { readInvocationUsage } from "./usage/usage-walk.js";
export { USAGE_METADATA_KEY, MODEL_METADATA_KEY, FAILOVER_METADATA_KEY } from "./usage/usage-metadata-keys.js";

// Runner, App, workflow agents, AgentTool
export { Runner } from "./runner/runner.js";
export type {
  RunnerOptions,
  RunAsyncRequest,
  RunEphemeralRequest,
  RunLiveRequest,
  ResumeRequest,
} from "./runner/runner-options.js";
export type { WarmUpReport } from "./runner/warm-up.js";
export { App, type AppOptions, type EventsCompactionConfig, type EventsSummarizer } from "./runner/app.js";
export { LlmEventSummarizer, type LlmEventSummarizerOptions } from "./runner/llm-event-summarizer.js";

export { InMemoryRunner, type InMemoryRunnerOptions } from "./runner/in-memory-runner.js";
export { rewindSession, type RewindRequest, type SessionHistoryServices } from "./runner/rewind-session.js";
export { forkSession, type ForkRequest } from "./runner/fork-session.js";

export { SequentialAgent, type SequentialAgentOptions } from "./agents/sequential-agent.js";
export { ParallelAgent, type ParallelAgentOptions } from "./agents/parallel-agent.js";
export { LoopAgent, type LoopAgentOptions } from "./agents/loop-agent.js";
export { AgentTool, type AgentToolOptions } from "./tools/agent-tool.js";

// Workflows (graph of nodes) and resumable runs
export { Workflow, isWorkflow, type WorkflowOptions, type DynamicEntry } from "./workflow/workflow.js";
export {
  BaseNode,
  isBaseNode,
  type BaseNodeOptions,
  type NodeRetryConfig,
  type ErrorMatcher,
  type NodeYield,
} from "./workflow/base-node.js";
export { FunctionNode, type FunctionNodeHandler, type FunctionNodeOptions } from "./workflow/function-node.js";
export { JoinNode, type JoinNodeOptions, type JoinWaitFor } from "./workflow/join-node.js";
export { AgentNode, type AgentNodeOptions } from "./workflow/agent-node.js";
export { ToolNode, type ToolNodeOptions } from "./workflow/tool-node.js";
export { NodeTool, type NodeToolOptions } from "./workflow/node-tool.js";
export { node, type NodeLike } from "./workflow/build-node.js";
export { NodeContext, type RunNodeOptions } from "./workflow/node-context.js";
export { RequestInput, isRequestInput, type RequestInputParams } from "./workflow/request-input.js";
export {
  Edge,
  WorkflowGraph,
  START,
  DEFAULT_ROUTE,
  ERROR_ROUTE,
  type EdgeOptions,
  type EdgeItem,
  type ChainElement,
  type RoutingMap,
  type GraphEdge,
} from "./workflow/graph.js";
export {
  NodeTimeoutError,
  NodeSchemaValidationError,
  NodeInterruptedError,
  WorkflowResumeError,
} from "./workflow/workflow-errors.js";
export type { SchemaLike } from "./workflow/schema-like.js";
export type { ResumabilityConfig } from "./context/invocation-context.js";

// LlmAgent and the LLM flow
export {
  LlmAgent,
  IncludeContents,
  type LlmAgentOptions,
  type Instruction,
  type InstructionProvider,
} from "./agents/llm-agent.js";
export { isLlmAgent } from "./flows/llm-agent-kind.js";

export { ToolNotFoundError } from "./flows/function-calling.js";

export {
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
} from "./flows/confirmation-names.js";

export { OutputValidationError, type OutputSchema } from "./flows/output-schema.js";

// Auth: credentials for tools that act for a user (docs/auth.md)
export {
  AuthCredentialTypes,
  type AuthCredentialType,
  type AuthCredential,
  type HttpAuth,
  type HttpCredentials,
  type OAuth2Auth,
  type ServiceAccount,
  type ServiceAccountCredential,
} from "./auth/auth-credential.js";
export {
  OAuthGrantType,
  getOAuthGrantTypeFromFlow,
  type AuthScheme,
  type ApiKeySecurityScheme,
  type HttpSecurityScheme,
  type OAuth2SecurityScheme,
  type OpenIdSecurityScheme,
  type OpenIdConnectWithConfig,
  type ServiceAccountScheme,
  type OAuthFlows,
  type OAuthFlow,
  type OAuthGrantTypeValue,
} from "./auth/auth-scheme.js";
export {
  withCredentialKey,
  redactAuthConfig,
  redactCredential,
  type AuthConfig,
  type KeyedAuthConfig,
  type AuthToolArguments,
} from "./auth/auth-config.js";
export {
  BaseCredentialService,
  InMemoryCredentialService,
  type CredentialContext,
} from "./auth/base-credential-service.js";
export { SessionStateCredentialService } from "./auth/session-state-credential-service.js";
export {
  StoredCredentialService,
  type CredentialStore,
  type CredentialScope,
} from "./auth/stored-credential-service.js";
export { CredentialCipher, CREDENTIAL_KEY_ENV, CREDENTIAL_OLD_KEYS_ENV } from "./auth/credential-cipher.js";
export {
  CredentialExchangerRegistry,
  OAuth2CredentialExchanger,
  OAuth2CredentialRefresher,
  type CredentialExchanger,
  type CredentialRefresher,
  type CredentialExchangeInput,
} from "./auth/credential-exchangers.js";
export { discoverOpenIdConfig, type OAuth2Tokens } from "./auth/oauth2-token-client.js";
export { CredentialError, CredentialStoreError } from "./errors/auth-errors.js";
