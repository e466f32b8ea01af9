import { AgentKitError } from "@agentkit/core";
import { HttpRequestError } from "./server-errors.js";

/** HTTP status for each stable error code the server can meet; anything else is a 500. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  APP_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  SESSION_ALREADY_EXISTS: 409,
  STALE_SESSION: 409,
  INVALID_JSON: 400,
  INVALID_ARTIFACT: 400,
  INVALID_ARTIFACT_NAME: 400,
  INVALID_USER_MESSAGE: 400,
  INVALID_STATE_KEY: 400,
  STATE_KEY_FORBIDDEN: 403,
  // A used-up budget (RunConfig.budget / App.budget): the quota kind of "too many requests".
  BUDGET_TOKENS_EXCEEDED: 429,
  BUDGET_COST_EXCEEDED: 429,
  BUDGET_MODEL_CALLS_EXCEEDED: 429,
  BUDGET_DURATION_EXCEEDED: 429,
  // Nginx's "client closed request": only logs see it, the client is gone.
  RUN_ABORTED: 499,
};

/** The HTTP status that answers this error. */
export function statusForError(error: unknown): number {
  if (error instanceof HttpRequestError) return error.status;
  if (error instanceof AgentKitError) return STATUS_BY_CODE[error.code] ?? 500;
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
    const message = error instanceof AgentKitError ? error.message : `${error.name}: ${error.message}`;
    return { error: message, detail: message, code: error instanceof AgentKitError ? error.code : "INTERNAL" };
  }
  return { error: "Internal server error", detail: "Internal server error", code: "INTERNAL" };
}
