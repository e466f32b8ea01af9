import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** A model response lacks a field the adapter needs (e.g. no choices, a tool call without a name). */
export class GenAiFieldMissingError extends AgentKitError {
  readonly field: string;

  constructor(field: string, where = "the model response", options: AgentKitErrorOptions = {}) {
    super(
      "GENAI_FIELD_MISSING",
      `The field "${field}" of ${where} is missing or empty. The provider sent an unexpected response; retry, and if ` +
        `it persists report it with the model name.`,
      options,
    );
    this.field = field;
  }
}
