import { AgentKitError } from "@agentkit/core";
import { relativizePaths } from "../loader/agent-load-error.js";
import { HttpRequestError } from "./server-errors.js";

/**
 * HTTP status for every stable error code of core, the session and artifact backends and the
 * server (a test scans their sources and fails on a code missing here; `HttpRequestError`s
 * carry their own status). 4xx: the request is at fault and the message goes to the client.
 * 5xx: the server, its configuration or a store is at fault; the client gets a generic message.
 */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  // Requests the server refuses.
  APP_NOT_FOUND: 404,
  NOT_FOUND: 404,
  FORBIDDEN: 403,
  // A check of `GET /readyz` that did not answer in time (the body names it; the probe is 503).
  READINESS_CHECK_TIMEOUT: 503,
  TOO_MANY_CONNECTIONS: 429,
  INVALID_JSON: 400,
  INVALID_LIVE_REQUEST: 400,
  AGENT_TEST_INVALID: 422,
  INTERNAL: 500,
  // Sessions (core and @agentkit/sessions).
  SESSION_NOT_FOUND: 404,
  SESSION_ALREADY_EXISTS: 409,
  STALE_SESSION: 409,
  // Another replica's run held the session past the lock's wait; nothing was stored.
  SESSION_BUSY: 409,
  INVALID_SESSION_KEY: 400,
  INVALID_SESSION_REQUEST: 400,
  INVALID_ARGUMENT: 400,
  INVOCATION_NOT_FOUND: 404,
  EVENT_NOT_FOUND: 404,
  SESSION_ERROR: 500,
  SESSION_STORE_UNAVAILABLE: 503,
  SESSION_SERVICE_CLOSED: 503,
  SESSION_STORE_TOO_NEW: 500,
  SESSION_SCHEMA_TOO_NEW: 500,
  SESSION_STORE_CORRUPT: 500,
  SESSION_STORE_ERROR: 500,
  MANAGED_SESSION_API_ERROR: 502,
  MANAGED_SESSION_TIMEOUT: 504,
  MANAGED_SESSION_UNAVAILABLE: 503,
  // The server's own credentials were refused: nothing the client can change.
  MANAGED_SESSION_AUTH: 500,
  // Artifacts (core and @agentkit/artifacts).
  INVALID_ARTIFACT: 400,
  INVALID_ARTIFACT_NAME: 400,
  INVALID_USER_MESSAGE: 400,
  INVALID_STATE_KEY: 400,
  STATE_KEY_FORBIDDEN: 403,
  INVALID_ARTIFACT_SCOPE: 400,
  INVALID_ARTIFACT_URI: 500,
  ARTIFACT_STORE_LIMIT: 413,
  ARTIFACT_STORE_CONFLICT: 409,
  ARTIFACT_STORE_ABORTED: 499,
  ARTIFACT_STORE_UNAVAILABLE: 503,
  ARTIFACT_STORE_FULL: 507,
  ARTIFACT_STORE_ACCESS_DENIED: 500,
  ARTIFACT_STORE_NOT_FOUND: 500,
  ARTIFACT_STORE_CORRUPT: 500,
  ARTIFACT_STORE_FAILED: 500,
  // Tool credentials (core/src/auth): a bad answer from the client is its mistake; keys,
  // schemes and the provider's token endpoint are the server's side.
  AUTH_RESPONSE_INVALID: 400,
  AUTH_STATE_MISMATCH: 400,
  AUTH_SCHEME_UNSUPPORTED: 500,
  CREDENTIAL_KEY_REQUIRED: 500,
  CREDENTIAL_KEY_INVALID: 500,
  CREDENTIAL_DECRYPT_FAILED: 500,
  CREDENTIAL_REQUEST_UNAVAILABLE: 500,
  CREDENTIAL_EXCHANGE_FAILED: 502,
  CREDENTIAL_REFRESH_FAILED: 502,
  AUTH_DISCOVERY_FAILED: 502,
  // An upstream server answered more than its reader allows (core/src/http): its side, not ours.
  RESPONSE_TOO_LARGE: 502,
  // Runs: an agent, tool, plugin or model failing is the server's side.
  CONFIGURATION_ERROR: 500,
  LLM_CALLS_LIMIT_EXCEEDED: 500,
  MODEL_ERROR: 500,
  TOOL_ERROR: 500,
  TOOL_NOT_FOUND: 500,
  PLUGIN_ERROR: 500,
  CONFIRMATION_UNAVAILABLE: 500,
  OUTPUT_SCHEMA_VALIDATION_FAILED: 500,
  SCRIPT_ERROR: 500,
  // Workflows: a node failing is the server's side; a paused run that cannot continue is a conflict.
  NODE_FAILED: 500,
  NODE_TIMEOUT: 500,
  NODE_SCHEMA_INVALID: 500,
  NODE_INTERRUPTED: 500,
  WORKFLOW_RESUME_FAILED: 409,
  NOTHING_TO_RESUME: 409,
  NOT_RESUMABLE: 409,
  SUSPEND_UNAVAILABLE: 500,
  // A used-up budget (RunConfig.budget / App.budget): the quota kind of "too many requests".
  BUDGET_TOKENS_EXCEEDED: 429,
  BUDGET_COST_EXCEEDED: 429,
  BUDGET_MODEL_CALLS_EXCEEDED: 429,
  BUDGET_DURATION_EXCEEDED: 429,
  // Nginx's "client closed request": only logs see it, the client is gone.
  RUN_ABORTED: 499,
};

/** The status mapped to an error code, or `undefined` for a code the table does not know. */
export function statusForErrorCode(code: string): number | undefined {
  return Object.hasOwn(STATUS_BY_CODE, code) ? STATUS_BY_CODE[code] : undefined;
}

/** The HTTP status that answers this error. */
export function statusForError(error: unknown): number {
  if (error instanceof HttpRequestError) return error.status;
  if (error instanceof AgentKitError) return statusForErrorCode(error.code) ?? 500;
  return 500;
}

/**
 * The JSON error body of http-api.md: `error` (JS clients) and `detail` (Python clients)
 * carry the same message, `code` is stable. Unexpected errors get a generic message so no
 * internals reach clients, unless `exposeMessages` (the dev server in web mode, whose client is
 * the agent's own developer): then their message, as ADK's servers send it. Never a stack trace.
 */
export function errorBody(error: unknown, exposeMessages = false): { error: string; detail: string; code: string } {
  const status = statusForError(error);
  if (error instanceof AgentKitError && (status < 500 || error instanceof HttpRequestError)) {
    return { error: error.message, detail: error.message, code: error.code };
  }
  if (error instanceof AgentKitError && error.code === "CONFIGURATION_ERROR") {
    // A broken app: the developer needs the message (file and field), it holds no secrets.
    return { error: error.message, detail: error.message, code: error.code };
  }
  if (exposeMessages && error instanceof Error && error.message) {
    // Driver and file system messages name files of the server's machine: keep only their names.
    const text = error instanceof AgentKitError ? error.message : `${error.name}: ${error.message}`;
    const message = relativizePaths(text, undefined);
    return { error: message, detail: message, code: error instanceof AgentKitError ? error.code : "INTERNAL" };
  }
  return { error: "Internal server error", detail: "Internal server error", code: "INTERNAL" };
}
