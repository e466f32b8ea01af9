import { AgentKitError, type AgentKitErrorOptions } from "./agentkit-error.js";

/**
 * A filename, app name, user id or session id no artifact backend accepts (see
 * `validateArtifactRequest`), or a name too long for one backend's storage once encoded.
 * `code` is `INVALID_ARTIFACT_NAME`; the server answers it with 400.
 */
export class InvalidArtifactNameError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("INVALID_ARTIFACT_NAME", message, options);
  }
}

/** A session-scoped filename without a sessionId. `code` is `INVALID_ARTIFACT_SCOPE`. */
export class InvalidArtifactScopeError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("INVALID_ARTIFACT_SCOPE", message, options);
  }
}
