import { once } from "node:events";
import { request, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, jest } from "@jest/globals";
import { ConfigurationError, LlmAgent } from "@agentkit/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpHttpHandler, createMcpServer, type McpTool, McpToolset, type McpHttpHandler } from "../src/index.js";
import { EchoModel, fixtureAgent, fixtureTools, waitForAbortCalls } from "./fixtures/agentkit-fixtures.js";
import { childPids, makeToolContext, packageDir, stdioFixture, testDir, waitFor } from "./helpers.js";

jest.setTimeout(60_000);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function stdioClient(mode: "tools" | "agent"): Promise<Client> {
  const client = new Client({ name: "test", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--conditions=@agentkit/source", "--import", "tsx", `${testDir}/fixtures/agentkit-stdio.ts`, mode],
      cwd: packageDir,
    }),
  );
  cleanup.push(() => client.close());
  return client;
}

async function listen(handler: McpHttpHandler): Promise<string> {
  const http: HttpServer = await new Promise((resolve) => {
    const s = handler.app.listen(0, "127.0.0.1", () => resolve(s));
  });
  cleanup.push(async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

async function httpClient(url: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanup.push(() => client.close());
  return client;
}

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
}

describe("agentkit tools as an MCP server over stdio", () => {
  it("lists tools with their JSON schemas and calls them (results, errors, state)", async () => {
    const client = await stdioClient("tools");
    expect(client.getServerVersion()?.name).toBe("agentkit-tools");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["multiply", "count_visits", "explode", "wait_for_abort"]);
    expect(tools[0]!.inputSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" } },
      required: ["a", "b"],
    });

    const product = await client.callTool({ name: "multiply", arguments: { a: 6, b: 7 } });
    expect(product.structuredContent).toEqual({ product: 42 });
    expect(JSON.parse(textOf(product))).toEqual({ product: 42 });

    const invalid = await client.callTool({ name: "multiply", arguments: { a: "six" } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain("Invalid arguments for tool multiply");

    const thrown = await client.callTool({ name: "explode", arguments: {} });
    expect(thrown).toMatchObject({ isError: true, content: [{ type: "text", text: "kaboom" }] });

    expect(textOf(await client.callTool({ name: "count_visits", arguments: {} }))).toBe("visit 1");
    expect(textOf(await client.callTool({ name: "count_visits", arguments: {} }))).toBe("visit 2");

    const unknown = await client.callTool({ name: "nope", arguments: {} });
    expect(unknown.isError).toBe(true);
  });

  it("serves an agent as one tool that returns its final text", async () => {
    const client = await stdioClient("agent");
    const { tools } = await client.listTools();
    expect(tools).toEqual([expect.objectContaining({ name: "echo_agent", description: "Echoes the request." })]);
    expect(textOf(await client.callTool({ name: "echo_agent", arguments: { request: "hello there" } }))).toBe(
      "echo: hello there",
    );
    expect((await client.callTool({ name: "echo_agent", arguments: {} })).isError).toBe(true);
  });
});

describe("agentkit as an MCP server over streamable HTTP", () => {
  it("serves tools to the SDK client and to McpToolset, and forwards cancellation", async () => {
    const handler = createMcpHttpHandler({ tools: fixtureTools() });
    const url = await listen(handler);
    const client = await httpClient(url);
    expect((await client.callTool({ name: "multiply", arguments: { a: 3, b: 5 } })).structuredContent).toEqual({
      product: 15,
    });

    const toolset = new McpToolset({ connection: { type: "streamable-http", url } });
    cleanup.push(() => toolset.close());
    const multiply = (await toolset.getTools()).find((t) => t.name === "multiply") as McpTool;
    expect(await multiply.runAsync({ args: { a: 4, b: 4 }, toolContext: await makeToolContext() })).toMatchObject({
      structuredContent: { product: 16 },
    });
    expect(handler.sessionCount).toBe(2);

    const controller = new AbortController();
    const started = once(waitForAbortCalls, "started");
    const waiting = client.callTool({ name: "wait_for_abort", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await started;
    const aborted = once(waitForAbortCalls, "aborted");
    controller.abort();
    await expect(waiting).rejects.toThrow();
    await aborted; // the tool's own signal fired: the cancellation reached it
  });

  it("serves an agent and rejects foreign Host headers (DNS rebinding)", async () => {
    const handler = createMcpHttpHandler({ agent: fixtureAgent() });
    const url = await listen(handler);
    const client = await httpClient(url);
    expect(textOf(await client.callTool({ name: "echo_agent", arguments: { request: "over http" } }))).toBe(
      "echo: over http",
    );

    // fetch cannot set Host, so use node:http.
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        url,
        {
          method: "POST",
          headers: {
            host: "evil.example.com",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(status).toBe(403);
  });

  it("answers requests without a session with 400 and unknown sessions with 404; close() ends sessions", async () => {
    const handler = createMcpHttpHandler({ tools: fixtureTools() });
    const url = await listen(handler);
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    expect((await fetch(url, { method: "POST", headers, body: JSON.stringify(list) })).status).toBe(400);
    expect(
      (
        await fetch(url, {
          method: "POST",
          headers: { ...headers, "mcp-session-id": "nope" },
          body: JSON.stringify(list),
        })
      ).status,
    ).toBe(404);
    await httpClient(url);
    expect(handler.sessionCount).toBe(1);
    await handler.close();
    expect(handler.sessionCount).toBe(0);
  });
});

describe("ownership of served agents", () => {
  it("handler.close() closes the runner it created, and with it the agent's MCP toolsets", async () => {
    const before = childPids();
    const agent = new LlmAgent({
      name: "nested",
      model: new EchoModel(),
      tools: [new McpToolset({ connection: stdioFixture(), toolFilter: ["add"] })],
    });
    const handler = createMcpHttpHandler({ agent });
    const url = await listen(handler);
    const client = await httpClient(url);
    // The model call lists the nested toolset's tools, which spawns its stdio child.
    expect(textOf(await client.callTool({ name: "nested", arguments: { request: "hi" } }))).toBe("echo: hi");
    expect(childPids().filter((p) => !before.includes(p))).toHaveLength(1);
    await handler.close();
    await waitFor(() => childPids().filter((p) => !before.includes(p)).length === 0);
  });
});

describe("createMcpServer", () => {
  it("connects to any transport and validates its options", async () => {
    const server = createMcpServer({ tools: fixtureTools() });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(clientSide);
    expect((await client.listTools()).tools).toHaveLength(4);
    await client.close();
    await server.close();
    expect(() => createMcpServer({} as never)).toThrow(ConfigurationError);
    expect(() => createMcpServer({ agent: fixtureAgent(), toolName: "bad name!" })).toThrow(ConfigurationError);
  });
});
