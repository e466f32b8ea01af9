// The client under test for `conformance client`: an McpToolset against the scenario server.
// Usage: node --conditions=@agentkit/source --import tsx conformance-client.ts <server-url>
// (the scenario name comes in MCP_CONFORMANCE_SCENARIO, its context in MCP_CONFORMANCE_CONTEXT);
// conformance.test.ts runs a bundle of it.
import { McpToolset } from "../../src/index.js";
import { makeToolContext } from "../helpers.js";
import { runAuthScenario } from "./conformance-auth-client.js";

const url = process.argv.at(-1);
if (!url?.startsWith("http")) throw new Error("usage: conformance-client.ts <server-url>");
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";

if (scenario.startsWith("auth/")) {
  await runAuthScenario(url, scenario, JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}"));
} else {
  // Tool called per scenario (and its arguments); other scenarios only connect and list tools.
  const calls: Record<string, [string, Record<string, unknown>]> = {
    tools_call: ["add_numbers", { a: 5, b: 3 }],
    "elicitation-sep1034-client-defaults": ["test_client_elicitation_defaults", {}],
    "sse-retry": ["test_reconnection", {}],
  };
  const toolset = new McpToolset({
    connection: { type: "streamable-http", url },
    // Accept every form without filling it: the SDK applies the schema's defaults (SEP-1034).
    elicitation: { handler: () => ({ action: "accept", content: {} }) },
  });
  try {
    const tools = await toolset.getTools();
    const planned = calls[scenario];
    if (planned) {
      const tool = tools.find((t) => t.name === planned[0]);
      if (!tool) throw new Error(`scenario ${scenario}: the server has no tool ${planned[0]}`);
      const result = await tool.runAsync({ args: planned[1], toolContext: await makeToolContext() });
      console.log(JSON.stringify(result));
    }
  } finally {
    await toolset.close();
  }
}
