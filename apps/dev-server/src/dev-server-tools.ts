import { mcpToolsetFromConfig } from "@agentkit/mcp";
import { createBuiltInTools } from "@agentkit/tools";
import type { BuiltInTool } from "@agentkit/server";

/**
 * The tools YAML agent configs may name bare in the dev server: @agentkit/tools' built-ins
 * (google_search, load_artifacts, …) and `McpToolset` with ADK's connection args.
 */
export function devServerBuiltInTools(): Record<string, BuiltInTool> {
  return { ...createBuiltInTools(), McpToolset: mcpToolsetFromConfig, MCPToolset: mcpToolsetFromConfig };
}
