import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** A message cannot be converted to or from a wrapped framework's format (unsupported part type, invalid JSON args). */
export class MessageConversionError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("MESSAGE_CONVERSION_ERROR", message, options);
  }
}
