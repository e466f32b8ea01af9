import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** A computer action failed (browser not started or closed, navigation error, bad key name). */
export class ComputerUseError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("COMPUTER_USE_ERROR", message, options);
  }
}
