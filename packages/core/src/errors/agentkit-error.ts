/** Options every agentkit error accepts. */
export interface AgentKitErrorOptions {
  cause?: unknown;
}

/**
 * The base of every error agentkit throws. `code` is stable and machine-readable
 * (e.g. `SESSION_NOT_FOUND`); `message` says what happened and what to do about it.
 */
export class AgentKitError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options: AgentKitErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** Invalid or missing configuration (agent definitions, model names, options). */
export class ConfigurationError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("CONFIGURATION_ERROR", message, options);
  }
}
