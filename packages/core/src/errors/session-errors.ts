import { AgentKitError, type AgentKitErrorOptions } from "./agentkit-error.js";

/** Any failure in session management that has no more specific class. */
export class SessionError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions & { code?: string } = {}) {
    super(options.code ?? "SESSION_ERROR", message, options);
  }
}

/** The requested session does not exist (for this app and user). */
export class SessionNotFoundError extends SessionError {
  readonly appName: string;
  readonly userId: string;
  readonly sessionId: string;

  constructor(key: { appName: string; userId: string; sessionId: string }, options: AgentKitErrorOptions = {}) {
    super(
      `Session not found: ${key.sessionId} (app "${key.appName}", user "${key.userId}"). Create it first or enable ` +
        `autoCreateSession.`,
      {
        ...options,
        code: "SESSION_NOT_FOUND",
      },
    );
    this.appName = key.appName;
    this.userId = key.userId;
    this.sessionId = key.sessionId;
  }
}

/** A session with this id already exists for the app and user. */
export class SessionAlreadyExistsError extends SessionError {
  readonly sessionId: string;

  constructor(sessionId: string, options: AgentKitErrorOptions = {}) {
    super(`Session already exists: ${sessionId}. Choose another id or omit it to have one generated.`, {
      ...options,
      code: "SESSION_ALREADY_EXISTS",
    });
    this.sessionId = sessionId;
  }
}

/**
 * The session changed in the store since this writer loaded it (another replica or task
 * appended events). Reload the session and retry instead of overwriting.
 */
export class StaleSessionError extends SessionError {
  readonly sessionId: string;

  constructor(sessionId: string, detail: string, options: AgentKitErrorOptions = {}) {
    super(`Session ${sessionId} was modified by another writer: ${detail}. Reload the session and retry.`, {
      ...options,
      code: "STALE_SESSION",
    });
    this.sessionId = sessionId;
  }
}

/**
 * An app name, user id or session id that no session store accepts (empty, too long, control
 * characters, lone surrogates, `.` or `..`; see `sessionKeyProblem`). `code` is
 * `INVALID_SESSION_KEY`; the server answers it with 400.
 */
export class InvalidSessionKeyError extends SessionError {
  /** Which part of the key is wrong. */
  readonly field: "appName" | "userId" | "sessionId";

  constructor(field: "appName" | "userId" | "sessionId", message: string, options: AgentKitErrorOptions = {}) {
    super(message, { ...options, code: "INVALID_SESSION_KEY" });
    this.field = field;
  }
}
