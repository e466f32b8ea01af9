import type { JsonObjectSchema } from "@agentkit/core";
import { McpToolDeclarationError } from "../errors/mcp-errors.js";

/**
 * Turns an MCP tool's `inputSchema` into the plain JSON object schema agentkit tools declare as
 * `parametersJsonSchema` (as FunctionTool does for JSON schemas): a deep copy without `$schema`,
 * always with `properties`. MCP requires `type: "object"`; anything else is a declaration error.
 */
export function toParametersSchema(toolName: string, inputSchema: unknown): JsonObjectSchema {
  if (typeof inputSchema !== "object" || inputSchema === null || Array.isArray(inputSchema)) {
    throw new McpToolDeclarationError(
      toolName,
      `MCP tool "${toolName}" has no input schema object; exclude it with toolFilter or fix the server.`,
    );
  }
  const { $schema: _dialect, ...schema } = structuredClone(inputSchema) as Record<string, unknown>;
  if (schema.type !== "object") {
    throw new McpToolDeclarationError(
      toolName,
      `MCP tool "${toolName}" declares an input schema of type ${JSON.stringify(schema.type)}; tools take an object ` +
        `of named arguments (type "object"). Exclude it with toolFilter or fix the server.`,
    );
  }
  const properties = schema.properties;
  if (
    properties !== undefined &&
    (typeof properties !== "object" || properties === null || Array.isArray(properties))
  ) {
    throw new McpToolDeclarationError(
      toolName,
      `MCP tool "${toolName}" has an invalid "properties" in its input schema (expected an object).`,
    );
  }
  return { ...schema, type: "object", properties: (properties as Record<string, unknown> | undefined) ?? {} };
}

const VALID_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The name the model sees: MCP allows names model providers reject (dots, slashes, long names),
 * so other characters become `_` and the name is cut to 64 characters. The tool is still called
 * by its MCP name.
 */
export function toModelToolName(mcpName: string, prefix?: string): string {
  const full = prefix ? `${prefix}_${mcpName}` : mcpName;
  if (VALID_NAME.test(full)) return full;
  const cleaned = full.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  if (cleaned.length === 0)
    throw new McpToolDeclarationError(
      mcpName,
      `MCP tool name ${JSON.stringify(mcpName)} cannot be turned into a model tool name.`,
    );
  return cleaned;
}
