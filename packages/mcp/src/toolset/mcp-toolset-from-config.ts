import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";
import type { McpConnectionParameters } from "./connection-params.js";
import { McpToolset } from "./mcp-toolset.js";

const stringMap = z.record(z.string(), z.string());
const stdio = z.object({
  command: z.string(),
  args: z.array(z.string()).optional(),
  env: stringMap.optional(),
  cwd: z.string().optional(),
});
const http = z.object({ url: z.string(), headers: stringMap.optional() });

/**
 * The `args` of an `McpToolset` entry in a YAML agent config, in ADK's field names
 * (snake_case; camelCase also accepted): exactly one of `stdio_server_params` (or
 * `stdio_connection_params: { server_params }`), `sse_connection_params`,
 * `streamable_http_connection_params`; plus `tool_filter`, `tool_name_prefix`, `timeout`
 * (seconds, ADK's unit) and agentkit's `max_total_timeout` (seconds: `maxTotalTimeoutMs`) and
 * `cache_tool_list` (`McpToolsetOptions.cacheToolList`).
 */
const configSchema = z.strictObject({
  stdio_server_params: stdio.optional(),
  stdio_connection_params: z.object({ server_params: stdio, timeout: z.number().positive().optional() }).optional(),
  sse_connection_params: http
    .extend({ timeout: z.number().positive().optional(), sse_read_timeout: z.number().positive().optional() })
    .optional(),
  streamable_http_connection_params: http
    .extend({ timeout: z.number().positive().optional(), sse_read_timeout: z.number().positive().optional() })
    .optional(),
  tool_filter: z.array(z.string()).optional(),
  tool_name_prefix: z.string().optional(),
  timeout: z.number().positive().optional(),
  max_total_timeout: z.number().positive().optional(),
  cache_tool_list: z.boolean().optional(),
});

/**
 * Builds an `McpToolset` from a YAML agent config's `args` (ADK's `McpToolsetConfig` shape),
 * for the agent loader's `builtInTools` map: `tools: [{ name: McpToolset, args: {
 * stdio_server_params: { command: npx, args: [...] }, tool_filter: [read_file] } }]`.
 * Bad or ambiguous args throw a `ConfigurationError` naming the field.
 */
export function mcpToolsetFromConfig(args: Record<string, unknown> | undefined): McpToolset {
  const parsed = configSchema.safeParse(snakeKeys(args ?? {}));
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
      .join("; ");
    throw new ConfigurationError(`McpToolset args: ${issues}.`);
  }
  const c = parsed.data;
  const candidates: [McpConnectionParameters, number | undefined][] = [];
  if (c.stdio_server_params) candidates.push([{ type: "stdio", ...c.stdio_server_params }, undefined]);
  if (c.stdio_connection_params)
    candidates.push([{ type: "stdio", ...c.stdio_connection_params.server_params }, c.stdio_connection_params.timeout]);
  if (c.sse_connection_params) {
    const { url, headers, timeout } = c.sse_connection_params;
    candidates.push([{ type: "sse", url, ...(headers ? { headers } : {}) }, timeout]);
  }
  if (c.streamable_http_connection_params) {
    const { url, headers, timeout } = c.streamable_http_connection_params;
    candidates.push([{ type: "streamable-http", url, ...(headers ? { headers } : {}) }, timeout]);
  }
  if (candidates.length !== 1) {
    throw new ConfigurationError(
      `McpToolset args need exactly one connection (stdio_server_params, stdio_connection_params, ` +
        `sse_connection_params or streamable_http_connection_params); got ${candidates.length}.`,
    );
  }
  const [connection, connectionTimeout] = candidates[0]!;
  const seconds = c.timeout ?? connectionTimeout;
  return new McpToolset({
    connection,
    ...(c.tool_filter ? { toolFilter: c.tool_filter } : {}),
    ...(c.tool_name_prefix ? { toolNamePrefix: c.tool_name_prefix } : {}),
    ...(seconds ? { timeoutMs: Math.round(seconds * 1000) } : {}),
    ...(c.max_total_timeout ? { maxTotalTimeoutMs: Math.round(c.max_total_timeout * 1000) } : {}),
    ...(c.cache_tool_list === undefined ? {} : { cacheToolList: c.cache_tool_list }),
  });
}

/** camelCase keys of the config's own fields → snake_case (maps such as `env`/`headers` keep theirs). */
function snakeKeys(value: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = key.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);
    const keepKeys = name === "env" || name === "headers";
    out[name] =
      !keepKeys && depth < 2 && typeof v === "object" && v !== null && !Array.isArray(v)
        ? snakeKeys(v as Record<string, unknown>, depth + 1)
        : v;
  }
  return out;
}
