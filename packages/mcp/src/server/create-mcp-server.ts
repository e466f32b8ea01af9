import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createToolHost, type McpServerOptions, type ToolHost } from "./tool-host.js";

/** An MCP server (one per connection) answering `tools/list` and `tools/call` from a host. */
export function buildServer(host: ToolHost): Server {
  const server = new Server(host.info, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: host.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    host.callTool(request.params.name, request.params.arguments ?? {}, extra.signal),
  );
  return server;
}

/**
 * An MCP server exposing agentkit tools (`{ tools }`) or a whole agent (`{ agent, runner? }`).
 * Connect it to one transport (`await server.connect(transport)`). A runner the server created
 * is closed when the server closes. For stdio or HTTP use `serveMcpStdio` / `createMcpHttpHandler`.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const host = createToolHost(options);
  const server = buildServer(host);
  const previous = server.onclose;
  server.onclose = () => {
    previous?.();
    void host.close().catch(() => undefined);
  };
  return server;
}
