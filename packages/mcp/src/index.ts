// Public API of @agentkit/mcp. Everything exported is listed by name.

// Errors (the tool-server exception family)
export {
  McpToolsetError,
  McpToolDeclarationError,
  McpSessionInitError,
  McpToolLoadError,
  McpToolCallError,
} from "./errors/mcp-errors.js";

// Client side: MCP servers' tools as agentkit tools
export {
  parseConnectionParameters,
  describeServer,
  type McpConnectionParameters,
  type StdioServerParameters,
  type SseServerParameters,
  type StreamableHttpServerParameters,
} from "./toolset/connection-params.js";
export { McpToolset, type McpToolsetOptions } from "./toolset/mcp-toolset.js";
export type { McpAuthOptions } from "./toolset/mcp-auth-options.js";
export { McpAuthorizeTool } from "./toolset/mcp-authorize-tool.js";
export type { McpUserSessionOptions } from "./toolset/mcp-user-auth.js";
export { mcpToolsetFromConfig } from "./toolset/mcp-toolset-from-config.js";
export { McpTool, type McpToolOptions, type McpProgress, type McpProgressHandler } from "./toolset/mcp-tool.js";
export {
  McpSessionManager,
  isConnectionError,
  type McpSessionManagerOptions,
  type McpElicitationOptions,
} from "./toolset/mcp-session-manager.js";
export { toToolResponse, type McpToolResponse, type McpContentItem } from "./toolset/result-conversion.js";
export { toParametersSchema, toModelToolName } from "./toolset/schema-conversion.js";

// Server side: agentkit tools and agents as MCP servers
export { createMcpServer } from "./server/create-mcp-server.js";
export { serveMcpStdio, type ServeMcpStdioOptions, type McpStdioServer } from "./server/serve-mcp-stdio.js";
export { createMcpHttpHandler, type McpHttpHandlerOptions, type McpHttpHandler } from "./server/mcp-http-handler.js";
export type { McpServerOptions, McpToolsServerOptions, McpAgentServerOptions } from "./server/tool-host.js";
