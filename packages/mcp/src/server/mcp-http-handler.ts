import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { buildServer } from "./create-mcp-server.js";
import { createToolHost, type McpServerOptions } from "./tool-host.js";

export type McpHttpHandlerOptions = McpServerOptions & {
  /** Path of the MCP endpoint (default "/mcp"). */
  path?: string;
  /**
   * Host the app is served on; with a loopback host only loopback Host
   * headers are accepted (DNS-rebinding protection). Default "127.0.0.1".
   */
  host?: string;
  /** Host names accepted in the Host header (overrides the default for `host`). */
  allowedHosts?: string[];
  /** Most concurrent MCP sessions; new ones are refused beyond it (default 1000). */
  maxSessions?: number;
};

export interface McpHttpHandler {
  /** An Express app (from the SDK's createMcpExpressApp): `app.listen(port, "127.0.0.1")` or mount it. */
  readonly app: ReturnType<typeof createMcpExpressApp>;
  /** Open MCP sessions. */
  readonly sessionCount: number;
  /** Closes every session and the runner the handler created; the HTTP server is the caller's to close. */
  close(): Promise<void>;
}

type McpRequest = IncomingMessage & { body?: unknown };

/** Serves agentkit tools or an agent over streamable HTTP (stateful sessions, one MCP server each). */
export function createMcpHttpHandler(options: McpHttpHandlerOptions): McpHttpHandler {
  const { path = "/mcp", host = "127.0.0.1", allowedHosts, maxSessions = 1000, ...serverOptions } = options;
  const toolHost = createToolHost(serverOptions as McpServerOptions);
  const app = createMcpExpressApp(allowedHosts ? { host, allowedHosts } : { host });
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let closed = false;

  const handle = async (req: McpRequest, res: ServerResponse): Promise<void> => {
    if (closed) return sendError(res, 503, "The MCP server is shutting down.");
    const sessionId = header(req, "mcp-session-id");
    const existing = sessionId ? transports.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res, req.body);
    if (sessionId) return sendError(res, 404, "Session not found.");
    if (req.method !== "POST" || !isInitialize(req.body))
      return sendError(res, 400, "Bad Request: no valid session id; start with an initialize request.");
    if (transports.size >= maxSessions) return sendError(res, 503, "Too many MCP sessions.");
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await buildServer(toolHost).connect(transport);
    await transport.handleRequest(req, res, req.body);
  };

  app.all(path, (req, res, next) => {
    handle(req, res).catch(next);
  });

  return {
    app,
    get sessionCount() {
      return transports.size;
    },
    async close() {
      closed = true;
      const open = [...transports.values()];
      transports.clear();
      await Promise.allSettled(open.map((t) => t.close()));
      await toolHost.close();
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize",
  );
}

function sendError(res: ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
