import { describe, expect, it } from "@jest/globals";
import { getFunctionResponses, InMemoryRunner, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { McpToolset } from "../src/index.js";
import { childPids, stdioFixture, waitFor } from "./helpers.js";
import { collect } from "@agentkit/test-support/collect";

describe("McpToolset in a run", () => {
  it("an LlmAgent calls MCP tools, tool errors go back to the model, and runner.close() reaps the child", async () => {
    const before = childPids();
    const toolset = new McpToolset({ connection: stdioFixture(), toolFilter: ["add", "fail"] });
    const model = new ScriptedModel({
      steps: [
        {
          step: ScriptedModel.functionCalls([
            { name: "add", args: { a: 20, b: 22 }, id: "c1" },
            { name: "fail", args: { reason: "disk full" }, id: "c2" },
          ]),
          expect: (request) => {
            const names = (request.config?.tools ?? [])
              .flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name))
              .sort();
            expect(names).toEqual(["add", "fail"]);
          },
        },
        ScriptedModel.text("The sum is 42."),
      ],
    });
    const agent = new LlmAgent({ name: "calc", model, instruction: "Use the tools.", tools: [toolset] });
    const runner = new InMemoryRunner({ agent, appName: "mcp_app" });
    const session = await runner.sessionService.createSession({ appName: "mcp_app", userId: "u1" });
    const events = await collect(runner.runAsync({ userId: "u1", sessionId: session.id, newMessage: "add 20 and 22" }));

    const responses = events.flatMap((e) => getFunctionResponses(e));
    expect(responses.find((r) => r.id === "c1")?.response).toMatchObject({ text: "42" });
    expect(String(responses.find((r) => r.id === "c2")?.response?.error)).toContain("failed: disk full");
    expect(events.at(-1)?.content?.parts?.[0]?.text).toBe("The sum is 42.");
    model.assertConsumed();

    const spawned = childPids().filter((p) => !before.includes(p));
    expect(spawned).toHaveLength(1);
    await runner.close();
    await waitFor(() => childPids().filter((p) => !before.includes(p)).length === 0);
    await runner.close();
  });
});
