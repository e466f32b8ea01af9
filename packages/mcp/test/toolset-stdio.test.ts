import { afterEach, describe, expect, it, jest } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import { McpSessionInitError, McpTool, McpToolCallError, McpToolset, type McpProgress } from "../src/index.js";
import { PIXEL_PNG_BASE64 } from "./fixtures/fixture-server.js";
import { childPids, isAlive, makeToolContext, stdioFixture, waitFor } from "./helpers.js";

jest.setTimeout(60_000);

const open: McpToolset[] = [];
function toolset(options: Partial<ConstructorParameters<typeof McpToolset>[0]> = {}): McpToolset {
  const set = new McpToolset({ connection: stdioFixture(), ...options });
  open.push(set);
  return set;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function tool(set: McpToolset, name: string): Promise<McpTool> {
  const found = (await set.getTools()).find((t) => t.name === name);
  if (!(found instanceof McpTool)) throw new Error(`no tool ${name}`);
  return found;
}

async function serverPid(set: McpToolset): Promise<number> {
  const result = (await (await tool(set, "stats")).runAsync({ args: {}, toolContext: await makeToolContext() })) as {
    text: string;
  };
  return (JSON.parse(result.text) as { pid: number }).pid;
}

describe("McpToolset over stdio", () => {
  it("lists the server's tools with their JSON schemas as declarations", async () => {
    const tools = await toolset().getTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "add",
      "echo",
      "env_var",
      "fail",
      "image",
      "slow",
      "stats",
      "weather",
    ]);
    const add = tools.find((t) => t.name === "add")!;
    const declaration = add.getDeclaration()!;
    expect(declaration.name).toBe("add");
    expect(declaration.description).toBe("Adds two numbers.");
    expect(declaration.parametersJsonSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(declaration.parametersJsonSchema).not.toHaveProperty("$schema");
    // A tool without arguments still declares an object with properties.
    expect(tools.find((t) => t.name === "image")!.getDeclaration()!.parametersJsonSchema).toMatchObject({
      type: "object",
      properties: {},
    });
  });

  it("filters by names or a predicate and prefixes names", async () => {
    expect((await toolset({ toolFilter: ["add", "echo"] }).getTools()).map((t) => t.name).sort()).toEqual([
      "add",
      "echo",
    ]);
    expect((await toolset({ toolFilter: (t) => t.name.startsWith("e") }).getTools()).map((t) => t.name)).toEqual([
      "echo",
      "env_var",
    ]);
    const prefixed = await toolset({ toolNamePrefix: "fx", toolFilter: ["add"] }).getTools();
    expect(prefixed.map((t) => t.name)).toEqual(["fx_add"]);
    const result = await prefixed[0]!.runAsync({ args: { a: 1, b: 2 }, toolContext: await makeToolContext() });
    expect(result).toMatchObject({ text: "3" });
  });

  it("returns text, images and structured content", async () => {
    const set = toolset();
    const ctx = await makeToolContext();
    expect(await (await tool(set, "add")).runAsync({ args: { a: 2, b: 40 }, toolContext: ctx })).toEqual({
      content: [{ type: "text", text: "42" }],
      text: "42",
    });
    expect(await (await tool(set, "image")).runAsync({ args: {}, toolContext: ctx })).toEqual({
      content: [
        { type: "text", text: "a pixel" },
        { type: "image", mimeType: "image/png", data: PIXEL_PNG_BASE64 },
      ],
      text: "a pixel",
    });
    expect(await (await tool(set, "weather")).runAsync({ args: { city: "Oslo" }, toolContext: ctx })).toMatchObject({
      structuredContent: { city: "Oslo", celsius: 21.5 },
    });
  });

  it("turns an isError result into McpToolCallError carrying the result", async () => {
    const fail = await tool(toolset(), "fail");
    const error = await fail
      .runAsync({ args: { reason: "boom" }, toolContext: await makeToolContext() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpToolCallError);
    expect(error).toMatchObject({ code: "MCP_TOOL_CALL", toolName: "fail", result: { text: "failed: boom" } });
    expect((error as Error).message).toContain("failed: boom");
  });

  it("reports progress and sends cancellation to the server", async () => {
    const progress: McpProgress[] = [];
    const controller = new AbortController();
    // Progress 0 ("started", with announce) means the server is running the call: cancel it then.
    const set = toolset({
      onProgress: (p) => {
        progress.push(p);
        if (p.progress === 0) controller.abort();
      },
    });
    const slow = await tool(set, "slow");
    expect(
      await slow.runAsync({ args: { steps: 3, delayMs: 10 }, toolContext: await makeToolContext() }),
    ).toMatchObject({ text: "done after 3 steps" });
    // Every notification the server sent before its result, in order, by the time the call returns.
    expect(progress.map((p) => [p.toolName, p.progress, p.total, p.message])).toEqual([
      ["slow", 1, 3, "step 1"],
      ["slow", 2, 3, "step 2"],
      ["slow", 3, 3, "step 3"],
    ]);

    progress.length = 0;
    const call = slow.runAsync({
      args: { steps: 1, delayMs: 30_000, announce: true },
      toolContext: await makeToolContext(controller.signal),
    });
    await expect(call).rejects.toThrow();
    expect(progress.map((p) => p.message)).toEqual(["started"]);
    // The server counts the cancellation once the notification carrying it is handled: poll.
    const stats = await tool(set, "stats");
    let cancelled = 0;
    while (cancelled === 0) {
      const r = (await stats.runAsync({ args: {}, toolContext: await makeToolContext() })) as { text: string };
      cancelled = (JSON.parse(r.text) as { cancelledSlowCalls: number }).cancelledSlowCalls;
    }
    expect(cancelled).toBe(1);
  });

  it("delivers every progress notification that precedes the result, even in the same read", async () => {
    const progress: McpProgress[] = [];
    const set = new McpToolset({
      connection: stdioFixture("burst-stdio-server.ts"),
      onProgress: (p) => progress.push(p),
    });
    open.push(set);
    const burst = await tool(set, "burst");
    for (const steps of [1, 5]) {
      progress.length = 0;
      expect(await burst.runAsync({ args: { steps }, toolContext: await makeToolContext() })).toMatchObject({
        text: `done after ${steps} steps`,
      });
      expect(progress.map((p) => p.progress)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
    }
  });

  it("reuses one session and one child across getTools and calls; concurrent first calls share it", async () => {
    const before = childPids();
    const set = toolset();
    await Promise.all([set.getTools(), set.getTools(), set.getTools()]);
    const spawned = childPids().filter((p) => !before.includes(p));
    expect(spawned).toHaveLength(1);
    const pid = await serverPid(set);
    expect(pid).toBe(spawned[0]);
    await (await tool(set, "add")).runAsync({ args: { a: 1, b: 1 }, toolContext: await makeToolContext() });
    expect(await serverPid(set)).toBe(pid);
    expect(childPids().filter((p) => !before.includes(p))).toEqual([pid]);
  });

  it("reconnects after the server process dies", async () => {
    const set = toolset();
    const add = await tool(set, "add");
    const first = await serverPid(set);
    process.kill(first, "SIGKILL");
    await waitFor(() => !isAlive(first) || !childPids().includes(first));
    expect(await add.runAsync({ args: { a: 5, b: 6 }, toolContext: await makeToolContext() })).toMatchObject({
      text: "11",
    });
    const second = await serverPid(set);
    expect(second).not.toBe(first);
  });

  it("close() reaps the child, is safe twice, and later use fails with McpSessionInitError", async () => {
    const set = toolset();
    const pid = await serverPid(set);
    expect(isAlive(pid)).toBe(true);
    await set.close();
    await set.close();
    expect(childPids()).not.toContain(pid);
    await expect(set.getTools()).rejects.toBeInstanceOf(McpSessionInitError);
  });

  it("close() during the first connection attempt leaves no child", async () => {
    const before = childPids();
    const set = toolset();
    const listing = set.getTools().catch((e: unknown) => e);
    await set.close();
    expect(await listing).toBeInstanceOf(McpSessionInitError);
    await waitFor(() => childPids().filter((p) => !before.includes(p)).length === 0);
  });

  it("fails with McpSessionInitError naming the server when the command cannot start", async () => {
    const set = toolset({ connection: { type: "stdio", command: "/nonexistent/mcp-server", args: ["--x"] } });
    const error = await set.getTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpSessionInitError);
    expect(error).toMatchObject({ code: "MCP_SESSION_INIT" });
    expect((error as Error).message).toContain("/nonexistent/mcp-server --x");
  });

  it("passes env to the child without inheriting the rest of this process's environment", async () => {
    process.env.AGENTKIT_MCP_TEST_SECRET = "do-not-leak";
    try {
      const set = toolset({ connection: { ...stdioFixture(), env: { MY_SETTING: "on" } } });
      const envVar = await tool(set, "env_var");
      const ctx = await makeToolContext();
      expect(await envVar.runAsync({ args: { name: "MY_SETTING" }, toolContext: ctx })).toMatchObject({ text: "on" });
      expect(await envVar.runAsync({ args: { name: "AGENTKIT_MCP_TEST_SECRET" }, toolContext: ctx })).toMatchObject({
        text: "(unset)",
      });
      expect(await envVar.runAsync({ args: { name: "PATH" }, toolContext: ctx })).toMatchObject({
        text: process.env.PATH,
      });
    } finally {
      delete process.env.AGENTKIT_MCP_TEST_SECRET;
    }
  });

  it("validates options with ConfigurationError", () => {
    expect(() => new McpToolset({ connection: { type: "stdio", command: "" } })).toThrow(ConfigurationError);
    expect(() => new McpToolset({ connection: { type: "sse", url: "ftp://x" } })).toThrow(/url/);
    expect(() => new McpToolset({ connection: { type: "websocket" } as never })).toThrow(ConfigurationError);
    expect(() => new McpToolset({ connection: stdioFixture(), timeoutMs: -1 })).toThrow(/timeoutMs/);
  });
});
