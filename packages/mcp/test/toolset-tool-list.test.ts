// The tool list is kept between model requests while the server announces its changes, and
// asked again when it says they changed, when the session is new, or when the server never
// promised to announce them. Real servers of the official SDK over streamable HTTP; each counts
// the `tools/list` requests it answers.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "@jest/globals";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { type McpTool, McpToolset, mcpToolsetFromConfig } from "../src/index.js";
import { makeToolContext, waitFor } from "./helpers.js";

interface CountingServer {
  url: string;
  /** `tools/list` requests answered so far. */
  lists(): number;
  /** The McpServers of the sessions opened (announcing servers only). */
  sessions: McpServer[];
  /** Ends every session on the server side (the client must open a new one). */
  dropSessions(): Promise<void>;
  close(): Promise<void>;
}

/** Streamable HTTP, one server per session: an `McpServer` (announces changes) or a bare `Server` (does not). */
async function countingServer(kind: "announcing" | "silent"): Promise<CountingServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const sessions: McpServer[] = [];
  let lists = 0;
  const newServer = () => {
    if (kind === "announcing") {
      const server = new McpServer({ name: "counting", version: "1.0.0" });
      server.registerTool("echo", { description: "Echoes.", inputSchema: { text: z.string() } }, ({ text }) => ({
        content: [{ type: "text", text }],
      }));
      sessions.push(server);
      return server.server;
    }
    const server = new Server({ name: "silent", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: "echo", description: "Echoes.", inputSchema: { type: "object" as const, properties: {} } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: "ok" }] }));
    return server;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let body: unknown;
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      for (const message of Array.isArray(body) ? body : [body])
        if ((message as { method?: string }).method === "tools/list") lists += 1;
    }
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? transports.get(id) : undefined;
    if (!transport) {
      if (id !== undefined) return void res.writeHead(404).end();
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sid) => void transports.set(sid, created),
      });
      created.onclose = () => void (created.sessionId && transports.delete(created.sessionId));
      await newServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  };
  const http: HttpServer = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const dropSessions = async () => {
    const open = [...transports.values()];
    transports.clear();
    await Promise.allSettled(open.map((t) => t.close()));
  };
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    lists: () => lists,
    sessions,
    dropSessions,
    async close() {
      await dropSessions();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setUp(kind: "announcing" | "silent", cacheToolList?: boolean) {
  const server = await countingServer(kind);
  cleanup.push(() => server.close());
  const toolset = new McpToolset({
    connection: { type: "streamable-http", url: server.url },
    ...(cacheToolList === undefined ? {} : { cacheToolList }),
  });
  cleanup.push(() => toolset.close());
  return { server, toolset };
}

const names = async (toolset: McpToolset) => (await toolset.getTools()).map((t) => t.name).sort();

describe("McpToolset's tool list", () => {
  it("is asked for once while an announcing server's tools stay the same, and the tools are the same objects", async () => {
    const { server, toolset } = await setUp("announcing");
    const first = await toolset.getTools();
    for (let i = 0; i < 5; i++) expect(await toolset.getTools()).toEqual(first);
    expect((await toolset.getTools())[0]).toBe(first[0]);
    expect(server.lists()).toBe(1);
    // The kept tools still call the server.
    const echo = first.find((t) => t.name === "echo") as McpTool;
    expect(await echo.runAsync({ args: { text: "hi" }, toolContext: await makeToolContext() })).toMatchObject({
      text: "hi",
    });
  });

  it("is asked for again once the server announces a change, and shows the new tool", async () => {
    const { server, toolset } = await setUp("announcing");
    expect(await names(toolset)).toEqual(["echo"]);
    server.sessions[0]!.registerTool("late", { description: "Added later." }, () => ({
      content: [{ type: "text", text: "late" }],
    }));
    // The notice travels on the session's own stream: wait until a listing shows the tool.
    let seen: string[] = [];
    await waitFor(() => {
      void names(toolset).then((n) => (seen = n));
      return seen.includes("late");
    });
    expect(seen).toEqual(["echo", "late"]);
    const listsAfterChange = server.lists();
    await names(toolset);
    await names(toolset);
    expect(server.lists()).toBe(listsAfterChange);
  });

  it("is asked for again on a new session (the server dropped the old one, a call reconnected)", async () => {
    const { server, toolset } = await setUp("announcing");
    const echo = (await toolset.getTools()).find((t) => t.name === "echo") as McpTool;
    expect(server.lists()).toBe(1);
    await server.dropSessions();
    // The client learns of it on its next request: the call fails, reconnects and runs again.
    expect(await echo.runAsync({ args: { text: "again" }, toolContext: await makeToolContext() })).toMatchObject({
      text: "again",
    });
    expect(server.sessions).toHaveLength(2);
    expect(await names(toolset)).toEqual(["echo"]);
    expect(server.lists()).toBe(2);
    await names(toolset);
    expect(server.lists()).toBe(2);
  });

  it("is asked for on every request when the server does not announce changes, or when turned off", async () => {
    const silent = await setUp("silent");
    for (let i = 0; i < 3; i++) expect(await names(silent.toolset)).toEqual(["echo"]);
    expect(silent.server.lists()).toBe(3);
    const off = await setUp("announcing", false);
    for (let i = 0; i < 3; i++) expect(await names(off.toolset)).toEqual(["echo"]);
    expect(off.server.lists()).toBe(3);
  });

  it("follows cache_tool_list of a YAML config's args (on by default)", async () => {
    const server = await countingServer("announcing");
    cleanup.push(() => server.close());
    const fromConfig = (args: Record<string, unknown>) => {
      const toolset = mcpToolsetFromConfig({ streamable_http_connection_params: { url: server.url }, ...args });
      cleanup.push(() => toolset.close());
      return toolset;
    };
    for (const toolset of [
      fromConfig({}),
      fromConfig({ cache_tool_list: true }),
      fromConfig({ cacheToolList: true }),
    ]) {
      const before = server.lists();
      for (let i = 0; i < 3; i++) expect(await names(toolset)).toEqual(["echo"]);
      expect(server.lists() - before).toBe(1);
    }
    const off = fromConfig({ cache_tool_list: false });
    const before = server.lists();
    for (let i = 0; i < 3; i++) expect(await names(off)).toEqual(["echo"]);
    expect(server.lists() - before).toBe(3);
    expect(() => fromConfig({ cache_tool_list: "no" })).toThrow(/cache_tool_list/);
  });

  it("refuses a cacheToolList that is not a boolean", () => {
    expect(
      () =>
        new McpToolset({
          connection: { type: "streamable-http", url: "http://127.0.0.1:9/mcp" },
          cacheToolList: "yes" as unknown as boolean,
        }),
    ).toThrow(/cacheToolList/);
  });
});
