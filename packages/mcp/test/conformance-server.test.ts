// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) against
// createMcpHttpHandler (server mode).
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it, jest } from "@jest/globals";
import { FunctionTool } from "@agentkit/core";
import { createMcpHttpHandler } from "../src/index.js";
import { checksByScenario, conformanceBin, removeTempDirs, run, tempDir } from "./conformance/conformance-harness.js";

// Many runs of the tool one after the other: a longer hang detector than the default.
jest.setTimeout(300_000);
afterAll(removeTempDirs);

describe("MCP conformance, server mode (createMcpHttpHandler)", () => {
  it("passes the server scenarios that apply to a tools server", async () => {
    const handler = createMcpHttpHandler({
      name: "agentkit-conformance",
      tools: [
        new FunctionTool({
          name: "test_simple_text",
          description: "Returns a fixed text.",
          execute: () => "This is a simple text response for testing.",
        }),
      ],
    });
    const http: HttpServer = await new Promise((resolve) => {
      const s = handler.app.listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const scenarios = [
        "server-initialize",
        "tools-list",
        "tools-call-simple-text",
        "ping",
        "dns-rebinding-protection",
      ];
      for (const scenario of scenarios) {
        const dir = tempDir();
        const { code, output } = await run(conformanceBin, ["server", "--url", url, "--scenario", scenario, "-o", dir]);
        const checks = Object.values(checksByScenario(dir)).flat();
        expect({ scenario, code, failures: checks.filter((c) => !c.includes(":SUCCESS")) }).toEqual({
          scenario,
          code: 0,
          failures: [],
        });
        expect({ scenario, checks: checks.length, output: checks.length > 0 ? "" : output }).toEqual({
          scenario,
          checks: expect.any(Number),
          output: "",
        });
      }
    } finally {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    }
  });
});
