import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "@jest/globals";
import {
  McpSessionInitError,
  type McpTool,
  McpToolCallError,
  McpToolset,
  type McpConnectionParameters,
  type McpProgress,
} from "../src/index.js";
import { createServer, connect as connectTcp, type Server as TcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { ConfigurationError, RunAbortedError } from "@agentkit/core";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { PIXEL_PNG_BASE64, fixtureStats } from "./fixtures/fixture-server.js";
import { startFixtureHttpServer, type FixtureHttpServer } from "./fixtures/http-server.js";
import { makeToolContext, waitFor } from "./helpers.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function server(port?: number): Promise<FixtureHttpServer> {
  const s = await startFixtureHttpServer(port);
  cleanup.push(() => s.close());
  return s;
}

function toolset(
  connection: McpConnectionParameters,
  extra: { onProgress?: (p: McpProgress) => void; timeoutMs?: number; maxTotalTimeoutMs?: number } = {},
): McpToolset {
  const set = new McpToolset({ connection, ...extra });
  cleanup.push(() => set.close());
  return set;
}

async function call(set: McpToolset, name: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const tool = (await set.getTools()).find((t) => t.name === name) as McpTool;
  return tool.runAsync({ args, toolContext: await makeToolContext() });
}

describe.each([
  ["sse", (s: FixtureHttpServer) => s.sseUrl],
  ["streamable-http", (s: FixtureHttpServer) => s.mcpUrl],
] as const)("McpToolset over %s", (type, urlOf) => {
  it("lists and calls tools (text, image, structured, errors, progress) and sends the headers", async () => {
    const s = await server();
    const progress: McpProgress[] = [];
    const set = toolset(
      { type, url: urlOf(s), headers: { "x-test-token": "t-123" } },
      { onProgress: (p) => progress.push(p) },
    );
    expect((await set.getTools()).map((t) => t.name)).toContain("weather");
    expect(await call(set, "add", { a: 1, b: 2 })).toMatchObject({ text: "3" });
    expect(await call(set, "image")).toMatchObject({
      content: [{ type: "text" }, { type: "image", mimeType: "image/png", data: PIXEL_PNG_BASE64 }],
    });
    expect(await call(set, "weather", { city: "Rome" })).toMatchObject({
      structuredContent: { city: "Rome", celsius: 21.5 },
    });
    await expect(call(set, "fail", { reason: "nope" })).rejects.toBeInstanceOf(McpToolCallError);
    expect(await call(set, "slow", { steps: 2, delayMs: 5 })).toMatchObject({ text: "done after 2 steps" });
    // The last notification may lose the race with the response (the SDK then drops it).
    expect(progress.map((p) => p.progress)[0]).toBe(1);
    expect([[1], [1, 2]]).toContainEqual(progress.map((p) => p.progress));
    expect(s.seenHeaders.some((h) => h["x-test-token"] === "t-123")).toBe(true);
    expect(s.sessionCount()).toBe(1);
  });

  it("leaves no listener on the run's signal once its requests are answered", async () => {
    const s = await server();
    const set = toolset({ type, url: urlOf(s) });
    const run = new AbortController();
    const toolContext = await makeToolContext(run.signal);
    for (let i = 0; i < 5; i++) {
      const tool = (await set.getTools(toolContext)).find((t) => t.name === "add") as McpTool;
      expect(await tool.runAsync({ args: { a: i, b: 1 }, toolContext })).toMatchObject({ text: String(i + 1) });
    }
    // The SDK listens on each request's signal and never stops: those are the calls' own now.
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("reconnects when the server restarts on the same port", async () => {
    const first = await server();
    const set = toolset({ type, url: urlOf(first) });
    expect(await call(set, "echo", { message: "before" })).toMatchObject({ text: "before" });
    const tools = await set.getTools();
    await first.close();
    const second = await server(first.port);
    const echo = tools.find((t) => t.name === "echo")!;
    expect(await echo.runAsync({ args: { message: "after" }, toolContext: await makeToolContext() })).toMatchObject({
      text: "after",
    });
    expect(second.sessionCount()).toBe(1);
  });

  it("closes its session on the server", async () => {
    const s = await server();
    const set = toolset({ type, url: urlOf(s) });
    await set.getTools();
    expect(s.sessionCount()).toBe(1);
    await set.close();
    await waitFor(() => s.sessionCount() === 0);
  });
});

describe("McpToolset HTTP failures", () => {
  it("fails with McpSessionInitError naming the URL when nothing listens", async () => {
    const s = await startFixtureHttpServer();
    await s.close();
    const set = toolset({ type: "streamable-http", url: s.mcpUrl }, {});
    const error = await set.getTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpSessionInitError);
    expect((error as Error).message).toContain(`127.0.0.1:${s.port}/mcp`);
  });

  it.each(["sse", "streamable-http"] as const)(
    "over %s, opens the session after the first connections are reset",
    async (type) => {
      const s = await server();
      const proxy = await resettingProxy(s.port, 2);
      const set = toolset({
        type,
        url: (type === "sse" ? s.sseUrl : s.mcpUrl).replace(`:${s.port}/`, `:${proxy.port}/`),
      });
      expect((await set.getTools()).map((t) => t.name)).toContain("echo");
      expect(proxy.resets()).toBe(2);
      expect(s.sessionsOpened()).toBe(1);
    },
  );

  it("gives up with McpSessionInitError when every connection is reset", async () => {
    const s = await server();
    const proxy = await resettingProxy(s.port, Number.POSITIVE_INFINITY);
    const set = toolset({ type: "streamable-http", url: s.mcpUrl.replace(`:${s.port}/`, `:${proxy.port}/`) });
    const error = await set.getTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpSessionInitError);
    expect(proxy.resets()).toBe(3); // the bounded number of attempts
    expect(s.sessionsOpened()).toBe(0);
  });
});

describe("McpToolset time limits", () => {
  it.each(["sse", "streamable-http"] as const)(
    "over %s, ends a call whose server reports progress forever after maxTotalTimeoutMs, and cancels it on the server",
    async (type) => {
      const s = await server();
      const progress: McpProgress[] = [];
      const set = toolset(
        { type, url: type === "sse" ? s.sseUrl : s.mcpUrl },
        { timeoutMs: 1000, maxTotalTimeoutMs: 600, onProgress: (p) => progress.push(p) },
      );
      const tool = (await set.getTools()).find((t) => t.name === "slow") as McpTool;
      const cancelledBefore = fixtureStats.cancelledSlowCalls;
      const started = Date.now();
      // Progress every 50 ms, for 14 hours: each notification restarts the 1 s request timer.
      const outcome = await settleWithin(
        tool.runAsync({ args: { steps: 1_000_000, delayMs: 50 }, toolContext: await makeToolContext() }),
      );
      const elapsed = Date.now() - started;
      expect(outcome).toBeInstanceOf(McpToolCallError);
      const cause = (outcome as McpToolCallError).cause;
      expect(cause).toBeInstanceOf(McpError);
      expect((cause as McpError).code).toBe(ErrorCode.RequestTimeout);
      expect(elapsed).toBeGreaterThanOrEqual(550);
      expect(progress.length).toBeGreaterThan(3);
      await waitFor(() => fixtureStats.cancelledSlowCalls > cancelledBefore); // the server was told
    },
  );

  it("defaults maxTotalTimeoutMs to 10 minutes (or timeoutMs when longer) and validates it", () => {
    const url = "http://127.0.0.1:9/mcp";
    expect(new McpToolset({ connection: { type: "streamable-http", url } }).maxTotalTimeoutMs).toBe(600_000);
    expect(new McpToolset({ connection: { type: "streamable-http", url }, timeoutMs: 900_000 }).maxTotalTimeoutMs).toBe(
      900_000,
    );
    for (const bad of [0, -1, 1.5, "60"]) {
      expect(
        () => new McpToolset({ connection: { type: "streamable-http", url }, maxTotalTimeoutMs: bad as number }),
      ).toThrow(ConfigurationError);
    }
    expect(() => new McpToolset({ connection: { type: "streamable-http", url }, maxTotalTimeoutMs: 0 })).toThrow(
      /maxTotalTimeoutMs/,
    );
  });

  it("over sse, fails with McpSessionInitError within timeoutMs when the server never sends the endpoint event", async () => {
    const silent = await silentSseServer();
    const set = toolset({ type: "sse", url: silent.url }, { timeoutMs: 500 });
    const started = Date.now();
    const outcome = await settleWithin(set.getTools());
    const elapsed = Date.now() - started;
    expect(outcome).toBeInstanceOf(McpSessionInitError);
    expect((outcome as Error).message).toContain("timed out after 500 ms");
    expect(((outcome as Error).cause as McpError).code).toBe(ErrorCode.RequestTimeout);
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(silent.opened()).toBe(1); // a timeout is not retried
    await waitFor(() => silent.open() === 0); // the stream was closed
  });

  it("over sse, a run that aborts while connecting stops waiting at once; the connection attempt goes on for other callers", async () => {
    const silent = await silentSseServer();
    const set = toolset({ type: "sse", url: silent.url }, { timeoutMs: 2000 });
    const run = new AbortController();
    const aborted = settleWithin(set.getTools(await makeToolContext(run.signal)));
    let otherSettled = false;
    const other = settleWithin(set.getTools()).finally(() => {
      otherSettled = true;
    });
    await waitFor(() => silent.opened() === 1);
    run.abort();
    expect(await aborted).toBeInstanceOf(RunAbortedError);
    expect(otherSettled).toBe(false);
    expect(silent.open()).toBe(1); // still connecting, for the other caller
    expect(await other).toBeInstanceOf(McpSessionInitError); // by the timeout
    expect(silent.opened()).toBe(1);
  });
});

/**
 * What `promise` settles with (its value or its error), or a failure naming the limit when it
 * takes longer than `ms` (far beyond the limits under test: it only tells a hang from a timeout).
 */
async function settleWithin(promise: Promise<unknown>, ms = 10_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<unknown>((resolve) => {
    timer = setTimeout(() => resolve(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise.catch((e: unknown) => e), limit]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An HTTP server whose SSE endpoint answers the GET with event-stream headers and keepalive
 * comments but never sends the `endpoint` event.
 */
async function silentSseServer(): Promise<{ url: string; opened(): number; open(): number }> {
  let opened = 0;
  const streams = new Set<ServerResponse>();
  const http = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "GET") return void res.writeHead(405).end();
    opened += 1;
    streams.add(res);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.write(": connected\n\n");
    const keepalive = setInterval(() => res.write(": keepalive\n\n"), 50);
    res.on("close", () => {
      clearInterval(keepalive);
      streams.delete(res);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  cleanup.push(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/sse`, opened: () => opened, open: () => streams.size };
}

/** A TCP proxy to 127.0.0.1:`target` that resets the first `count` connections it accepts. */
async function resettingProxy(target: number, count: number): Promise<{ port: number; resets(): number }> {
  let resets = 0;
  const sockets = new Set<Socket>();
  const proxy: TcpServer = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    if (resets < count) {
      resets += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = connectTcp(target, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  cleanup.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });
  return { port: (proxy.address() as AddressInfo).port, resets: () => resets };
}
