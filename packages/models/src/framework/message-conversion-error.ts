import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** One part (or tool) that could not be converted, and where it sits in the request. */
export interface ConversionIssue {
  /** E.g. `contents[2].parts[0]` or `config.tools[1]`. */
  where: string;
  problem: string;
}

/**
 * A message cannot be converted to or from a wrapped framework's format (unsupported part
 * type, invalid JSON arguments). `issues` names every offending part.
 */
export class MessageConversionError extends AgentKitError {
  readonly issues: readonly ConversionIssue[];

  constructor(message: string, options: AgentKitErrorOptions & { issues?: ConversionIssue[] } = {}) {
    const { issues, ...rest } = options;
    super("MESSAGE_CONVERSION_ERROR", message, rest);
    this.issues = issues ?? [];
  }
}
