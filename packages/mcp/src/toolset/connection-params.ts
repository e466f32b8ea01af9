import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";

/** Spawn a local MCP server and talk to it over stdin/stdout. */
export interface StdioServerParameters {
  type: "stdio";
  command: string;
  args?: string[];
  /**
   * Added to the SDK's safe defaults (HOME, LOGNAME, PATH, SHELL, TERM,
   * USER); the rest of this process's environment is not inherited.
   */
  env?: Record<string, string>;
  cwd?: string;
}

/** A server speaking the (deprecated) HTTP+SSE transport: `url` is its SSE endpoint. */
export interface SseServerParameters {
  type: "sse";
  url: string;
  headers?: Record<string, string>;
}

/** A server speaking the streamable HTTP transport: `url` is its MCP endpoint. */
export interface StreamableHttpServerParameters {
  type: "streamable-http";
  url: string;
  headers?: Record<string, string>;
}

export type McpConnectionParameters = StdioServerParameters | SseServerParameters | StreamableHttpServerParameters;

const headers = z.record(z.string(), z.string()).optional();
const httpUrl = z.url({ protocol: /^https?$/ });

const connectionSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("stdio"),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
  }),
  z.strictObject({ type: z.literal("sse"), url: httpUrl, headers }),
  z.strictObject({ type: z.literal("streamable-http"), url: httpUrl, headers }),
]);

/** Validates connection parameters; throws `ConfigurationError` naming the bad field. */
export function parseConnectionParameters(value: unknown): McpConnectionParameters {
  const result = connectionSchema.safeParse(value);
  if (result.success) return result.data as McpConnectionParameters;
  const issues = result.error.issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
  throw new ConfigurationError(
    `Invalid MCP connection: ${issues}. Use { type: 'stdio', command, args?, env?, cwd? }, { type: 'sse', url, ` +
      `headers? } or { type: 'streamable-http', url, headers? }.`,
  );
}

/** A short, secret-free name of the server for error messages. */
export function describeServer(params: McpConnectionParameters): string {
  if (params.type === "stdio") return `stdio server "${[params.command, ...(params.args ?? [])].join(" ")}"`;
  const url = new URL(params.url);
  url.username = "";
  url.password = "";
  url.search = "";
  return `${params.type} server ${url.toString()}`;
}
