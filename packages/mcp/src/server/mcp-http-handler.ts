import { randomUUID } from "node:crypto";
import { IdleSweeper } from "../idle-sweeper.js";
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
  /**
   * A session with no request in progress and none for this long is closed (its client gets 404
   * and starts a new one, as the MCP spec has it); an open GET stream does not count, since the
   * server sends nothing on it. Default 30 minutes.
   */
  sessionIdleTimeoutMs?: number;
  /** The clock, in milliseconds (for tests). Default `Date.now`. */
  now?: () => number;
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

/** One MCP session: its transport and when it was last busy. */
interface SessionEntry {
  transport: StreamableHTTPServerTransport;
  /** Requests in progress (GET streams aside). */
  active: number;
  /** When the last request started or ended (`now()`). */
  lastActive: number;
}

const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/** Serves agentkit tools or an agent over streamable HTTP (stateful sessions, one MCP server each). */
export function createMcpHttpHandler(options: McpHttpHandlerOptions): McpHttpHandler {
  const {
    path = "/mcp",
    host = "127.0.0.1",
    allowedHosts,
    maxSessions = 1000,
    sessionIdleTimeoutMs = DEFAULT_SESSION_IDLE_MS,
    now = Date.now,
    ...serverOptions
  } = options;
  const toolHost = createToolHost(serverOptions as McpServerOptions);
  const app = createMcpExpressApp(allowedHosts ? { host, allowedHosts } : { host });
  const sessions = new Map<string, SessionEntry>();
  let closed = false;

  /** Counts a request as activity of its session until its response ends. */
  const track = (entry: SessionEntry, req: McpRequest, res: ServerResponse): void => {
    entry.lastActive = now();
    if (req.method === "GET") return;
    entry.active += 1;
    res.once("close", () => {
      entry.active -= 1;
      entry.lastActive = now();
    });
  };

  /** Closes the sessions with no request in progress and none for `sessionIdleTimeoutMs`. */
  const sweep = (): void => {
    const time = now();
    for (const [id, entry] of sessions) {
      if (entry.active > 0 || time - entry.lastActive < sessionIdleTimeoutMs) continue;
      sessions.delete(id);
      sweeper.closeInBackground(() => entry.transport.close());
    }
    sweeper.update(sessions.size > 0);
  };
  /** The idle sweep's timer and the closes of the sessions it let go. */
  const sweeper = new IdleSweeper(sweep, sessionIdleTimeoutMs);

  const handle = async (req: McpRequest, res: ServerResponse): Promise<void> => {
    if (closed) return sendError(res, 503, "The MCP server is shutting down.");
    const sessionId = header(req, "mcp-session-id");
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) {
      track(existing, req, res);
      return existing.transport.handleRequest(req, res, req.body);
    }
    if (sessionId) return sendError(res, 404, "Session not found.");
    if (req.method !== "POST" || !isInitialize(req.body))
      return sendError(res, 400, "Bad Request: no valid session id; start with an initialize request.");
    sweep(); // sessions abandoned without a DELETE make room
    if (sessions.size >= maxSessions) return sendError(res, 503, "Too many MCP sessions.");
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.set(id, entry);
        sweeper.update(!closed);
      },
    });
    const entry: SessionEntry = { transport, active: 0, lastActive: now() };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && sessions.get(id) === entry) sessions.delete(id);
      sweeper.update(sessions.size > 0);
    };
    track(entry, req, res);
    await buildServer(toolHost).connect(transport);
    await transport.handleRequest(req, res, req.body);
  };

  app.all(path, (req, res, next) => {
    handle(req, res).catch(next);
  });

  return {
    app,
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      closed = true;
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled([...open.map((s) => s.transport.close()), sweeper.drain()]);
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
