import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Readable, Writable } from "node:stream";
import { buildServer } from "./create-mcp-server.js";
import { createToolHost, type McpServerOptions } from "./tool-host.js";

export type ServeMcpStdioOptions = McpServerOptions & {
  /** Default: process.stdin / process.stdout. */
  stdin?: Readable;
  stdout?: Writable;
};

export interface McpStdioServer {
  readonly server: Server;
  /** Resolves when the client disconnects or `close()` is called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves agentkit tools or an agent over stdio (for a process a client spawns). Nothing else may
 * write to stdout; log to stderr. Closing releases the runner the server created.
 */
export async function serveMcpStdio(options: ServeMcpStdioOptions): Promise<McpStdioServer> {
  const { stdin, stdout, ...serverOptions } = options;
  const host = createToolHost(serverOptions as McpServerOptions);
  const server = buildServer(host);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  server.onclose = () => {
    void host
      .close()
      .catch(() => undefined)
      .finally(resolveClosed);
  };
  const input = stdin ?? process.stdin;
  await server.connect(new StdioServerTransport(input, stdout));
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= server.close().then(() => closed);
    return closing;
  };
  // The SDK transport does not notice the client going away: end the server (and its runner) when stdin ends.
  input.once("end", () => void close());
  return { server, closed, close };
}
