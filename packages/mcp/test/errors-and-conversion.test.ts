import { afterEach, describe, expect, it } from "@jest/globals";
import { AgentKitError } from "@agentkit/core";
import {
  type McpTool,
  McpToolDeclarationError,
  McpToolLoadError,
  McpToolset,
  McpToolsetError,
  toModelToolName,
  toParametersSchema,
  toToolResponse,
} from "../src/index.js";
import { startOddServer } from "./fixtures/odd-server.js";
import { makeToolContext } from "./helpers.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe("schema conversion", () => {
  it("copies an object schema without $schema and adds properties", () => {
    const input = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      required: ["x"],
      properties: { x: { type: "string" } },
    };
    const out = toParametersSchema("t", input);
    expect(out).toEqual({ type: "object", required: ["x"], properties: { x: { type: "string" } } });
    (out.properties as Record<string, unknown>).x = 1;
    expect(input.properties.x).toEqual({ type: "string" });
    expect(toParametersSchema("t", { type: "object" })).toEqual({ type: "object", properties: {} });
  });

  it("rejects schemas a model cannot take with McpToolDeclarationError", () => {
    for (const bad of [undefined, [], { type: "string" }, { type: "object", properties: [] }]) {
      const error = (() => {
        try {
          toParametersSchema("weird", bad);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(McpToolDeclarationError);
      expect(error).toBeInstanceOf(McpToolsetError);
      expect(error).toBeInstanceOf(AgentKitError);
      expect(error).toMatchObject({ code: "MCP_TOOL_DECLARATION", toolName: "weird" });
    }
  });

  it("cleans names for the model", () => {
    expect(toModelToolName("add")).toBe("add");
    expect(toModelToolName("add", "calc")).toBe("calc_add");
    expect(toModelToolName("files/read.all")).toBe("files_read_all");
    expect(toModelToolName("x".repeat(80))).toHaveLength(64);
  });
});

describe("result conversion", () => {
  it("keeps every content kind in a JSON shape", () => {
    expect(
      toToolResponse({
        content: [
          { type: "text", text: "a", annotations: { audience: ["user"] } },
          { type: "audio", mimeType: "audio/wav", data: "AAA=" },
          { type: "resource_link", uri: "file:///x", name: "x", _meta: { k: 1 } },
          { type: "resource", resource: { uri: "file:///y", mimeType: "text/plain", text: "why" } },
          { type: "text", text: "b" },
        ],
        structuredContent: { ok: true },
      }),
    ).toEqual({
      content: [
        { type: "text", text: "a" },
        { type: "audio", mimeType: "audio/wav", data: "AAA=" },
        { type: "resource_link", uri: "file:///x", name: "x" },
        { type: "resource", uri: "file:///y", mimeType: "text/plain", text: "why" },
        { type: "text", text: "b" },
      ],
      text: "a\nb",
      structuredContent: { ok: true },
    });
    expect(toToolResponse({ toolResult: { legacy: 1 } })).toEqual({
      content: [{ type: "text", text: '{"legacy":1}' }],
      text: '{"legacy":1}',
    });
  });
});

describe("McpToolset errors from real servers", () => {
  it("throws McpToolDeclarationError when two MCP names become one model name, and the filter resolves it", async () => {
    const server = await startOddServer("clashing-names");
    cleanup.push(() => server.close());
    const clash = new McpToolset({ connection: { type: "streamable-http", url: server.url } });
    cleanup.push(() => clash.close());
    const error = await clash.getTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpToolDeclarationError);
    expect((error as Error).message).toContain('"math.add" and "math_add"');

    const filtered = new McpToolset({
      connection: { type: "streamable-http", url: server.url },
      toolFilter: ["math.add", "files/read"],
    });
    cleanup.push(() => filtered.close());
    const tools = (await filtered.getTools()) as McpTool[];
    expect(tools.map((t) => [t.name, t.mcpName])).toEqual([
      ["math_add", "math.add"],
      ["files_read", "files/read"],
    ]);
    // The call goes out under the MCP name.
    expect(await tools[1]!.runAsync({ args: {}, toolContext: await makeToolContext() })).toMatchObject({
      text: "called files/read",
    });
  });

  it("throws McpToolLoadError when tools/list fails", async () => {
    const server = await startOddServer("failing-list");
    cleanup.push(() => server.close());
    const set = new McpToolset({ connection: { type: "streamable-http", url: server.url } });
    cleanup.push(() => set.close());
    const error = await set.getTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpToolLoadError);
    expect(error).toMatchObject({ code: "MCP_TOOL_LOAD" });
    expect((error as Error).message).toContain("the tool registry is offline");
  });
});
