import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LlmAgent, type BaseToolset } from "@agentkit/core";
import { createDirectoryAgentLoader } from "@agentkit/server";
import { createBuiltInTools, googleSearchTool } from "@agentkit/tools";
import { devServerBuilderPolicy, devServerBuiltInTools } from "../src/dev-server-tools.js";

const mcpPackage = fileURLToPath(new URL("../../../packages/mcp", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentkit-yaml-tools-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function app(name: string, yaml: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "root_agent.yaml"), yaml);
}

describe("tools YAML agent configs can name in the dev server", () => {
  it("builds an McpToolset from ADK's args whose tools come from the real stdio server", async () => {
    app(
      "mcp_app",
      `name: mcp_agent
model: gemini-2.5-flash
instruction: Use the tools.
tools:
  - name: McpToolset
    args:
      stdio_server_params:
        command: ${JSON.stringify(process.execPath)}
        args: ["--import", "tsx", "test/fixtures/stdio-server.ts"]
        cwd: ${JSON.stringify(mcpPackage)}
      tool_filter: [add]
  - load_memory
`,
    );
    const loader = createDirectoryAgentLoader({ agentsDir: dir, reload: false, builtInTools: devServerBuiltInTools() });
    try {
      const loaded = await loader.loadApp("mcp_app");
      const agent = loaded.rootAgent as LlmAgent;
      expect(agent).toBeInstanceOf(LlmAgent);
      const toolset = agent.tools[0] as BaseToolset;
      try {
        expect((await toolset.getTools()).map((t) => t.name)).toEqual(["add"]);
      } finally {
        await toolset.close();
      }
      expect((agent.tools[1] as { name: string }).name).toBe("load_memory");
    } finally {
      await loader.close();
    }
  });

  it("reports bad McpToolset args as a load error naming the file and the field", async () => {
    app(
      "bad_mcp",
      `name: bad_mcp\nmodel: gemini-2.5-flash\ntools:\n  - name: McpToolset\n    args:\n      tool_filter: [add]\n`,
    );
    const loader = createDirectoryAgentLoader({ agentsDir: dir, reload: false, builtInTools: devServerBuiltInTools() });
    try {
      await expect(loader.loadApp("bad_mcp")).rejects.toThrow(/bad_mcp[\\/]root_agent\.yaml.*exactly one connection/s);
    } finally {
      await loader.close();
    }
  });

  it("offers every built-in of @agentkit/tools by its name, loaded when a config names it", async () => {
    // The names are listed without importing the package at start; they must be the package's.
    expect(devServerBuilderPolicy().tools).toEqual(Object.keys(createBuiltInTools()));
    expect(Object.keys(devServerBuiltInTools())).toEqual(expect.arrayContaining(Object.keys(createBuiltInTools())));
    app("search_app", "name: searcher\nmodel: gemini-2.5-flash\ntools:\n  - google_search\n");
    app(
      "search_args",
      "name: searcher\nmodel: gemini-2.5-flash\ntools:\n  - name: google_search\n    args: { q: 1 }\n",
    );
    const loader = createDirectoryAgentLoader({ agentsDir: dir, reload: false, builtInTools: devServerBuiltInTools() });
    try {
      const agent = (await loader.loadApp("search_app")).rootAgent as LlmAgent;
      expect(agent.tools[0]).toBe(googleSearchTool);
      await expect(loader.loadApp("search_args")).rejects.toThrow(
        /search_args[\\/]root_agent\.yaml: tools\[0\]\.args: the built-in tool "google_search" takes no args/,
      );
    } finally {
      await loader.close();
    }
  });
});
