// Memory that must not grow with calls or clients: per-user sessions of McpToolset, the state
// session of served tools, the per-call sessions of a served agent, idle HTTP sessions.
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "@jest/globals";
import { FunctionTool, InMemoryRunner } from "@agentkit/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import {
  createMcpHttpHandler,
  createMcpServer,
  McpSessionInitError,
  type McpHttpHandlerOptions,
  type McpServerOptions,
  type McpTool,
  McpToolset,
  type McpUserSessionOptions,
} from "../src/index.js";
import { fixtureAgent, fixtureTools, waitForAbortCalls } from "./fixtures/agentkit-fixtures.js";
import { fixtureStats } from "./fixtures/fixture-server.js";
import { type FixtureHttpServer, startFixtureHttpServer } from "./fixtures/http-server.js";
import { makeToolContext, waitFor } from "./helpers.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
}

describe("McpToolset per-user sessions are bounded", () => {
  const REDIRECT = "http://127.0.0.1/callback";

  /** The fixture server (no authorization asked: every user's session opens without a token). */
  async function fixture(): Promise<FixtureHttpServer> {
    const s = await startFixtureHttpServer();
    cleanup.push(() => s.close());
    return s;
  }

  function perUserToolset(s: FixtureHttpServer, userSessions: McpUserSessionOptions): McpToolset {
    const set = new McpToolset({
      connection: { type: "streamable-http", url: s.mcpUrl },
      auth: { redirectUri: REDIRECT },
      userSessions,
    });
    cleanup.push(() => set.close());
    return set;
  }

  /** Lists the tools and calls `name` as `user` (each on that user's session). */
  async function callAs(set: McpToolset, user: string, name = "add", args: Record<string, unknown> = { a: 1, b: 2 }) {
    const toolContext = await makeToolContext(undefined, user);
    const tool = (await set.getTools(toolContext)).find((t) => t.name === name) as McpTool;
    return tool.runAsync({ args, toolContext });
  }

  it("closes the least recently used idle session beyond maxSessions", async () => {
    const s = await fixture();
    const set = perUserToolset(s, { maxSessions: 2 });
    await callAs(set, "u1");
    await callAs(set, "u2");
    expect(s.sessionsOpened()).toBe(2);
    await callAs(set, "u3"); // u1, the least recently used, is closed
    await callAs(set, "u2");
    await callAs(set, "u3");
    expect(s.sessionsOpened()).toBe(3); // u2 and u3 kept theirs
    expect(await callAs(set, "u1")).toMatchObject({ text: "3" });
    expect(s.sessionsOpened()).toBe(4); // u1 got a new one (and u2's was closed)
    await waitFor(() => s.sessionCount() === 2); // closed sessions end on the server (DELETE)
  });

  it("closes sessions unused for idleTimeoutMs", async () => {
    const s = await fixture();
    let clock = 0;
    const set = perUserToolset(s, { idleTimeoutMs: 1000, now: () => clock });
    await callAs(set, "u1");
    await callAs(set, "u2");
    clock = 999;
    await callAs(set, "u3"); // nothing idle long enough yet
    expect(s.sessionsOpened()).toBe(3);
    clock = 1999;
    await callAs(set, "u3"); // u1 and u2 were last used at 0: closed
    await callAs(set, "u1");
    expect(s.sessionsOpened()).toBe(4);
    await waitFor(() => s.sessionCount() === 2);
  });

  it("never closes a session while a call uses it", async () => {
    const s = await fixture();
    const set = new McpToolset({
      connection: { type: "streamable-http", url: s.mcpUrl },
      auth: { redirectUri: REDIRECT },
      userSessions: { maxSessions: 1 },
      onProgress: () => started(),
    });
    cleanup.push(() => set.close());
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const controller = new AbortController();
    const toolContext = await makeToolContext(controller.signal, "u1");
    const tools = await set.getTools(toolContext);
    const slow = tools.find((t) => t.name === "slow") as McpTool;
    const add = tools.find((t) => t.name === "add") as McpTool;
    // A tool runs on the session of the user whose context it gets.
    const addAs = async (user: string) =>
      add.runAsync({ args: { a: 1, b: 2 }, toolContext: await makeToolContext(undefined, user) });
    const cancelled = fixtureStats.cancelledSlowCalls;
    const call = slow.runAsync({ args: { steps: 1, delayMs: 600_000, announce: true }, toolContext });
    call.catch(() => undefined); // awaited below; not unhandled if the test fails before
    await running; // u1's call runs on the server
    expect(await addAs("u2")).toMatchObject({ text: "3" }); // over the maximum: u2's session, not u1's busy one, is closed
    expect(s.sessionsOpened()).toBe(2);
    controller.abort();
    await expect(call).rejects.toThrow();
    await waitFor(() => fixtureStats.cancelledSlowCalls === cancelled + 1);
    await addAs("u1");
    expect(s.sessionsOpened()).toBe(2); // u1 kept its session through the call
    await addAs("u2");
    expect(s.sessionsOpened()).toBe(3); // u2's had been closed (and now u1's, idle, is)
    await waitFor(() => s.sessionCount() === 1);
  });

  it("opens no session once closed", async () => {
    const s = await fixture();
    const set = perUserToolset(s, {});
    await callAs(set, "u1");
    await set.close();
    await expect(callAs(set, "u2")).rejects.toBeInstanceOf(McpSessionInitError);
    expect(s.sessionsOpened()).toBe(1);
    await waitFor(() => s.sessionCount() === 0);
  });
});

/** An SDK client connected to `createMcpServer(options)` in memory. */
async function inMemoryClient(options: McpServerOptions): Promise<Client> {
  const server: Server = createMcpServer(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  cleanup.push(async () => {
    await client.close();
    await server.close();
  });
  return client;
}

describe("served tools keep state, not a growing session", () => {
  it("keeps state across calls without adding an event per call; temp: keys last one call", async () => {
    const visit = new FunctionTool({
      name: "visit",
      description: "Counts visits in state and reports what the session holds.",
      parameters: z.object({}),
      execute: (_args, ctx) => {
        const visits = Number(ctx.state.get("visits") ?? 0) + 1;
        const leftover = ctx.state.get("temp:scratch");
        ctx.state.set("visits", visits);
        ctx.state.set("temp:scratch", visits);
        return { visits, events: ctx.session.events.length, leftover: leftover ?? null };
      },
    });
    const client = await inMemoryClient({ tools: [visit] });
    for (let i = 1; i <= 5; i++) {
      const result = await client.callTool({ name: "visit", arguments: {} });
      expect(result.structuredContent).toEqual({ visits: i, events: 0, leftover: null });
    }
  });
});

describe("a served agent's per-call sessions are deleted", () => {
  it("also when the caller supplies the runner, unless keepSessions", async () => {
    const agent = fixtureAgent();
    const runner = new InMemoryRunner({ agent, appName: "echo_app" });
    cleanup.push(() => runner.close());
    const sessions = async () =>
      (await runner.sessionService.listSessions({ appName: "echo_app", userId: "mcp-client" })).sessions.length;

    const client = await inMemoryClient({ agent, runner });
    for (const request of ["one", "two", "three"])
      expect(textOf(await client.callTool({ name: "echo_agent", arguments: { request } }))).toBe(`echo: ${request}`);
    expect(await sessions()).toBe(0);

    const keeping = await inMemoryClient({ agent, runner, keepSessions: true });
    await keeping.callTool({ name: "echo_agent", arguments: { request: "kept" } });
    expect(await sessions()).toBe(1);
  });
});

describe("createMcpHttpHandler closes idle sessions", () => {
  /**
   * Serves the handler, counting responses in progress other than GET streams: once none is,
   * the handler has seen the end of every request (its listener runs in the same `close` event).
   */
  async function serve(options: McpHttpHandlerOptions): Promise<{ url: string; busy(): number }> {
    const handler = createMcpHttpHandler(options);
    let busy = 0;
    const http: HttpServer = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== "GET") {
        busy += 1;
        res.once("close", () => (busy -= 1));
      }
      handler.app(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    cleanup.push(async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    });
    return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, busy: () => busy };
  }

  /** A server of at most two sessions, each closed 60 s after its last request on a clock the test sets. */
  async function serveTwoSessions() {
    let clock = 0;
    const served = await serve({
      tools: fixtureTools(),
      maxSessions: 2,
      sessionIdleTimeoutMs: 60_000,
      now: () => clock,
    });
    return { ...served, setClock: (ms: number) => void (clock = ms) };
  }

  async function connect(url: string): Promise<Client> {
    const client = new Client({ name: "test", version: "1" });
    // Closing the client does not end its session on the server (no DELETE): an abandoned session.
    cleanup.push(() => client.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  }

  it("makes room for new clients once abandoned sessions are idle past sessionIdleTimeoutMs", async () => {
    const { url, busy, setClock } = await serveTwoSessions();
    const first = await connect(url);
    await connect(url);
    await waitFor(() => busy() === 0);
    await expect(connect(url)).rejects.toThrow(/503|Too many/);
    setClock(59_999);
    await expect(connect(url)).rejects.toThrow(/503|Too many/);
    setClock(60_000);
    const third = await connect(url);
    expect((await third.callTool({ name: "multiply", arguments: { a: 2, b: 3 } })).structuredContent).toEqual({
      product: 6,
    });
    // The idle sessions were closed: their clients are told the session is gone.
    await expect(first.callTool({ name: "multiply", arguments: { a: 1, b: 1 } })).rejects.toThrow(/404|not found/i);
  });

  it("keeps a session with a request in progress", async () => {
    const { url, busy, setClock } = await serveTwoSessions();
    const working = await connect(url);
    const idle = await connect(url);
    const controller = new AbortController();
    const started = new Promise((resolve) => waitForAbortCalls.once("started", resolve));
    const waiting = working.callTool({ name: "wait_for_abort", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    waiting.catch(() => undefined); // awaited below; not unhandled if the test fails before
    await started;
    await waitFor(() => busy() === 1); // only the call in progress
    setClock(120_000);
    const third = await connect(url); // the idle session made room; the busy one stayed
    expect((await working.callTool({ name: "multiply", arguments: { a: 3, b: 3 } })).structuredContent).toEqual({
      product: 9,
    });
    const aborted = new Promise((resolve) => waitForAbortCalls.once("aborted", resolve));
    controller.abort();
    await expect(waiting).rejects.toThrow();
    await aborted;
    expect((await working.callTool({ name: "multiply", arguments: { a: 4, b: 5 } })).structuredContent).toEqual({
      product: 20,
    });
    await expect(idle.callTool({ name: "multiply", arguments: { a: 1, b: 1 } })).rejects.toThrow(/404|not found/i);
    expect((await third.callTool({ name: "multiply", arguments: { a: 1, b: 2 } })).structuredContent).toEqual({
      product: 2,
    });
  });
});
