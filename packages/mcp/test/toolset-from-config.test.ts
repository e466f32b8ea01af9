import { describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import { mcpToolsetFromConfig } from "../src/index.js";
import { makeToolContext, stdioFixture } from "./helpers.js";

describe("mcpToolsetFromConfig (YAML agent configs, ADK's McpToolset args)", () => {
  it("builds a stdio toolset from snake_case args, with its filter and prefix, that calls the real server", async () => {
    const fixture = stdioFixture();
    const toolset = mcpToolsetFromConfig({
      stdio_server_params: { command: fixture.command, args: fixture.args, cwd: fixture.cwd },
      tool_filter: ["add", "echo"],
      tool_name_prefix: "calc",
      timeout: 30,
    });
    try {
      const tools = await toolset.getTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["calc_add", "calc_echo"]);
      const add = tools.find((t) => t.name === "calc_add")!;
      const result = (await add.runAsync({ args: { a: 2, b: 3 }, toolContext: await makeToolContext() })) as {
        text?: string;
      };
      expect(result.text).toBe("5");
    } finally {
      await toolset.close();
    }
  });

  it("accepts camelCase and the stdio_connection_params / http forms", () => {
    expect(
      mcpToolsetFromConfig({
        streamableHttpConnectionParams: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer x" } },
      }),
    ).toBeDefined();
    expect(mcpToolsetFromConfig({ sse_connection_params: { url: "http://127.0.0.1:1/sse" } })).toBeDefined();
    expect(
      mcpToolsetFromConfig({ stdio_connection_params: { server_params: { command: "node" }, timeout: 5 } }),
    ).toBeDefined();
  });

  it("takes max_total_timeout in seconds (maxTotalTimeoutMs), else the toolset's default", () => {
    const bounded = mcpToolsetFromConfig({ stdio_server_params: { command: "node" }, max_total_timeout: 90 });
    expect(bounded.maxTotalTimeoutMs).toBe(90_000);
    const camel = mcpToolsetFromConfig({ stdio_server_params: { command: "node" }, maxTotalTimeout: 1.5 });
    expect(camel.maxTotalTimeoutMs).toBe(1500);
    expect(mcpToolsetFromConfig({ stdio_server_params: { command: "node" } }).maxTotalTimeoutMs).toBe(600_000);
    expect(() => mcpToolsetFromConfig({ stdio_server_params: { command: "node" }, max_total_timeout: 0 })).toThrow(
      /max_total_timeout/,
    );
  });

  it("rejects a config with no connection, two connections, or an unknown field, naming what is wrong", () => {
    expect(() => mcpToolsetFromConfig({})).toThrow(/exactly one connection .*got 0/);
    expect(() =>
      mcpToolsetFromConfig({
        stdio_server_params: { command: "node" },
        sse_connection_params: { url: "http://127.0.0.1:1/sse" },
      }),
    ).toThrow(/exactly one connection .*got 2/);
    expect(() => mcpToolsetFromConfig({ stdio_server_params: { command: "node" }, tools: ["x"] })).toThrow(
      ConfigurationError,
    );
    expect(() => mcpToolsetFromConfig({ stdio_server_params: { command: "node" }, tools: ["x"] })).toThrow(/tools/);
    expect(() => mcpToolsetFromConfig({ sse_connection_params: { url: "ftp://x" } })).toThrow(ConfigurationError);
  });
});
