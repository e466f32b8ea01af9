import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** The A2A client failed (transport error, protocol error, unexpected response). */
export class A2AClientError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("A2A_CLIENT_ERROR", message, options);
  }
}

/** The remote agent card could not be fetched, parsed or used. */
export class AgentCardResolutionError extends AgentKitError {
  /** The card URL or path that failed, when the card was given by reference. */
  readonly source?: string;

  constructor(message: string, options: AgentKitErrorOptions & { source?: string } = {}) {
    super("AGENT_CARD_RESOLUTION_ERROR", message, options);
    this.source = options.source;
  }
}

/** The message of an unknown thrown value. */
export function errorMessageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
