import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** The replay configuration is invalid or missing (no file, unreadable YAML, wrong shape). */
export class ReplayConfigError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("REPLAY_CONFIG_ERROR", message, options);
  }
}

/** A replayed run asked for something other than what was recorded; `differences` says what. */
export class ReplayVerificationError extends AgentKitError {
  readonly differences: string[];

  constructor(message: string, differences: string[] = [], options: AgentKitErrorOptions = {}) {
    super(
      "REPLAY_VERIFICATION_ERROR",
      differences.length ? `${message}\n  ${differences.join("\n  ")}` : message,
      options,
    );
    this.differences = differences;
  }
}
