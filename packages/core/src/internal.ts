// @agentkit/core/internal: what sibling agentkit packages (server, sessions, tools, ...) need from
// core beyond its public API: flow steps, backend helpers, validation. NOT semver-stable: it may
// change in any release. Applications and third-party backends should use the root entry.

export { scopeOfKey, withoutTempKeys, splitStateDelta, mergeState } from "./sessions/state.js";
export { setOwn, assignOwn, getOwn, hasOwnKey } from "./sessions/own-keys.js";
export {
  checkClientState,
  isInternalStateKey,
  INTERNAL_STATE_PREFIXES,
  type ClientStatePolicy,
} from "./sessions/client-state-policy.js";
export { checkIncomingMessage, checkIncomingParts } from "./flows/incoming-message-check.js";
export { applyEventToSession, SessionQueueKey } from "./sessions/base-session-service.js";
export { OVER_LOG_FROM, sessionOverLog, sessionEvents } from "./sessions/session-events.js";
export { isLentHistory } from "./flows/shared-contents.js";
export { validateAgentName } from "./agents/base-agent.js";
export { lazySchema, lazySchemasBuilt, type LazySchema } from "./tools/lazy-schema.js";
export type { InvocationContextInit } from "./context/invocation-context.js";
export { callbackList, runCallbackSlot, type MaybePromise, type CallbackSlot } from "./agents/callbacks.js";
export { DEFAULT_MAX_LLM_CALLS, resolveRunConfig } from "./agents/run-config.js";
export {
  DEFAULT_CODE_BLOCK_DELIMITERS,
  DEFAULT_EXECUTION_RESULT_DELIMITERS,
} from "./code-executors/base-code-executor.js";
export {
  extractCodeAndTruncateContent,
  buildCodeExecutionResultPart,
  convertCodeExecutionParts,
  extractInputFiles,
} from "./code-executors/code-execution-utils.js";
export {
  CODE_EXECUTION_CONTEXT_KEY,
  readCodeExecutionContext,
  getErrorCount,
  type CodeExecutionContextState,
} from "./code-executors/code-executor-context.js";
export {
  MAX_ARTIFACT_FILENAME_BYTES,
  validateArtifactFilename,
  validateArtifactScope,
  validateArtifactRequest,
  validateArtifactPart,
  artifactMimeType,
} from "./artifacts/artifact-validation.js";
export {
  MAX_SESSION_KEY_BYTES,
  sessionKeyProblem,
  validateSessionKey,
  validateSessionKeyPart,
  type SessionKeyField,
} from "./sessions/session-key-validation.js";
export {
  MAX_SESSION_PAGE_SIZE,
  compareSessionsForList,
  decodeSessionPageToken,
  pageSessions,
  sessionPageFromRows,
  sessionPageSize,
  type SessionListCursor,
  type SessionPage,
  type SessionSortKey,
} from "./sessions/session-list-page.js";
export { validateToolName } from "./tools/function-tool.js";
export { LONG_RUNNING_NOTE } from "./tools/long-running-function-tool.js";
export { validateAppName } from "./runner/app.js";
export { selectCompactionWindow } from "./runner/events-compaction.js";
export { findAgentToRun } from "./runner/find-agent-to-run.js";
export { runLlmFlow, createModelResponseEvent } from "./flows/llm-flow.js";
export { buildLlmRequest } from "./flows/request-builder.js";
export { preprocessCodeExecution, executeCodeInResponse, saveModelSideImages } from "./flows/code-execution.js";
export { callModel, afterModel, errorResponse } from "./flows/model-call.js";
export {
  handleFunctionCalls,
  executeFunctionCalls,
  generateFunctionCallId,
  populateFunctionCallIds,
  getLongRunningCallIds,
  type HandleFunctionCallsOptions,
  type FunctionCallsOutcome,
} from "./flows/function-calling.js";
export { getContents, getCurrentTurnContents } from "./flows/contents.js";
export { isEventInBranch, isInternalRequestEvent } from "./flows/should-include-event.js";
export { PENDING_CALL_RESPONSE, UNANSWERED_CALL_RESPONSE } from "./flows/answer-dangling-calls.js";
export { injectSessionState, isValidStateName, identityInstruction } from "./flows/instructions.js";
export {
  buildConfirmationRequestEvent,
  parseToolConfirmation,
  resumeConfirmedToolCalls,
} from "./flows/confirmation.js";
export { RESERVED_FUNCTION_CALL_NAMES, CLIENT_FUNCTION_CALL_ID_PREFIX } from "./flows/confirmation-names.js";
export {
  getTransferTargets,
  isTransferableAcrossAgentTree,
  TransferToAgentTool,
  TRANSFER_TO_AGENT_TOOL_NAME,
} from "./flows/transfer.js";
export { SetModelResponseTool, SET_MODEL_RESPONSE_TOOL_NAME } from "./flows/output-schema.js";
export { KeyedQueue, type ReleaseSlot } from "./concurrency/keyed-queue.js";
export { ContentsCache, type ContentsCacheOptions } from "./flows/contents-cache.js";
export { BoundedLru, type BoundedLruOptions } from "./caching/bounded-lru.js";
export type { ContentsMemo, ContentsMemoSlot } from "./flows/contents.js";
export { deepCopy, deepFreeze } from "./content/deep-copy.js";
export { cycleChecker } from "./content/cycle-check.js";
export { copyWithRoom } from "./content/copy-with-room.js";
export {
  camelToSnake,
  snakeToCamel,
  camelizeKeys,
  convertKeys,
  toCamelCase,
  toSnakeCase,
  type KeyCaseOptions,
} from "./content/key-case.js";
export {
  abortableSleep,
  backoffDelay,
  resolveRetryPolicy,
  retry,
  retryStream,
  type RetryDecision,
  type RetryOptions,
} from "./concurrency/retry.js";
export { readBodyLimited, ResponseTooLargeError, type ReadBodyLimitedOptions } from "./http/read-body-limited.js";
export { resolveCredential, withoutClientSecret } from "./auth/credential-manager.js";
export { resolveOAuth2Endpoints } from "./auth/credential-exchangers.js";
export {
  MAX_OAUTH2_RESPONSE_BYTES,
  oauth2TimeoutMs,
  requestDeadline,
  requestOAuth2Token,
  safeUrl,
} from "./auth/oauth2-token-client.js";
export { oauth2Endpoints } from "./auth/auth-scheme.js";
export { CREDENTIAL_STATE_PREFIX } from "./auth/session-state-credential-service.js";
export { credentialDependenciesOfContext } from "./auth/credential-request.js";
export { maskSchemeCredentials } from "./auth/scheme-credentials.js";
export type { CredentialDependencies } from "./auth/credential-manager.js";
export { createWarmUpAgent, warmUpRuntime } from "./runner/warm-up-runtime.js";
export { withPreloadedSession } from "./runner/preloaded-session.js";
export { readOrCreateSession } from "./runner/load-run-session.js";
export { AbortScope } from "./concurrency/abort-scope.js";
export { settleAll, settleInOrder, throwFailures } from "./concurrency/settle-all.js";
export { untilAborted, type UntilAbortedOptions } from "./concurrency/until-aborted.js";
export { settlesWithin } from "./concurrency/settles-within.js";
export { OWN_POSTGRES_POOL_DEFAULTS } from "./sessions/own-postgres-pool-defaults.js";
