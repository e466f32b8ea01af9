import { SessionError, type AgentKitErrorOptions } from "@agentkit/core";

/** Why a SQL session store failed; the `code` of the error. */
export type SessionStoreErrorCode =
  /** The database could not be opened or reached. */
  | "SESSION_STORE_UNAVAILABLE"
  /** The store was written by a newer agentkit (schema or event format unknown to this one). */
  | "SESSION_STORE_TOO_NEW"
  /** A stored value could not be read back (e.g. an event row that is not valid event JSON). */
  | "SESSION_STORE_CORRUPT"
  /** Any other database failure. */
  | "SESSION_STORE_ERROR";

/** A failure of a persistent session store itself (not of the caller's request). */
export class SessionStoreError extends SessionError {
  constructor(code: SessionStoreErrorCode, message: string, options: AgentKitErrorOptions = {}) {
    super(message, { ...options, code });
  }
}
