import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** The base of every error of @agentkit/mcp (the spec's tool-server exception family). */
export class McpToolsetError extends AgentKitError {
  constructor(code: string, message: string, options: AgentKitErrorOptions = {}) {
    super(code, message, options);
  }
}

/** A tool of the server cannot be declared to the model (its input schema is not an object schema, or names clash). */
export class McpToolDeclarationError extends McpToolsetError {
  readonly toolName: string;

  constructor(toolName: string, message: string, options: AgentKitErrorOptions = {}) {
    super("MCP_TOOL_DECLARATION", message, options);
    this.toolName = toolName;
  }
}

/** Connecting to the server or the MCP initialize handshake failed (or the toolset is closed). */
export class McpSessionInitError extends McpToolsetError {
  readonly server: string;

  constructor(server: string, message: string, options: AgentKitErrorOptions = {}) {
    super("MCP_SESSION_INIT", message, options);
    this.server = server;
  }
}

/** Listing the server's tools failed after the session was established. */
export class McpToolLoadError extends McpToolsetError {
  readonly server: string;

  constructor(server: string, message: string, options: AgentKitErrorOptions = {}) {
    super("MCP_TOOL_LOAD", message, options);
    this.server = server;
  }
}

/**
 * A tool call failed: the server answered with `isError: true`, or the request itself failed.
 * The LLM flow reports it to the model as the tool's `{ error }` response.
 */
export class McpToolCallError extends McpToolsetError {
  readonly toolName: string;
  /** The converted tool result when the server answered with `isError`. */
  readonly result?: Record<string, unknown>;

  constructor(
    toolName: string,
    message: string,
    options: AgentKitErrorOptions & { result?: Record<string, unknown> } = {},
  ) {
    super("MCP_TOOL_CALL", message, options);
    this.toolName = toolName;
    this.result = options.result;
  }
}
