import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** No app of that name is served (unknown folder, or not an agent). */
export class AppNotFoundError extends AgentKitError {
  readonly appName: string;

  constructor(appName: string, options: AgentKitErrorOptions = {}) {
    super("APP_NOT_FOUND", `App not found: ${appName}`, options);
    this.appName = appName;
  }
}

/**
 * A request the server refuses, with the HTTP status to answer. Route handlers throw it
 * (or any AgentKitError); the error middleware turns it into a JSON error body.
 */
export class HttpRequestError extends AgentKitError {
  readonly status: number;
  /** Seconds the client should wait before retrying (sent as `Retry-After`), when it may. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    options: AgentKitErrorOptions & { retryAfterSeconds?: number } = {},
  ) {
    const { retryAfterSeconds, ...rest } = options;
    super(code, message, rest);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The server is shutting down: a new run is refused (503), and a run still going when the grace
 * period ends is cut with this error (a last SSE error frame, or a 503 body on `/run`), so a
 * client can tell a cut answer from a complete one.
 */
export class ServerDrainingError extends HttpRequestError {
  constructor() {
    super(503, "SHUTTING_DOWN", "The server is shutting down; retry on another instance.", { retryAfterSeconds: 1 });
  }
}
