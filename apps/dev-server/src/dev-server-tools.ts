import { createBuiltInTools } from "@agentkit/tools";
import type { BuiltInTool } from "@agentkit/server";

/**
 * The tools YAML agent configs may name bare in the dev server: @agentkit/tools' built-ins
 * (google_search, load_artifacts, …) and `McpToolset` with ADK's connection args. The MCP SDK
 * is imported only when a config names `McpToolset`, to keep start-up short.
 */
export function devServerBuiltInTools(): Record<string, BuiltInTool> {
  const mcpToolset: BuiltInTool = async (args) => (await import("@agentkit/mcp")).mcpToolsetFromConfig(args);
  return { ...createBuiltInTools(), McpToolset: mcpToolset, MCPToolset: mcpToolset };
}
