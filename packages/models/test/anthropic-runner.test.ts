import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { FunctionTool, getTextOf, InMemoryRunner, LlmAgent, StreamingMode, type Event } from "@agentkit/core";
import { z } from "zod";
import { AnthropicModel } from "../src/anthropic/index.js";
import { FakeAnthropicServer, streamEvents } from "./fixtures/anthropic-server.js";

let server: FakeAnthropicServer;
let baseURL: string;

beforeEach(async () => {
  server = new FakeAnthropicServer();
  baseURL = await server.start();
});
afterEach(async () => {
  await server.close();
});

describe("AnthropicModel in a run", () => {
  it("runs a tool round trip through LlmAgent and Runner with matching tool_use ids", async () => {
    server.reply(
      {
        kind: "sse",
        events: streamEvents(
          [{ type: "tool_use", id: "toolu_42", name: "add", jsonChunks: ['{"a": 2,', ' "b": 3}'] }],
          "tool_use",
        ),
      },
      { kind: "sse", events: streamEvents([{ type: "text", chunks: ["The sum ", "is 5."] }], "end_turn") },
    );
    const model = new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL });
    let calls = 0;
    const add = new FunctionTool({
      name: "add",
      description: "Adds two numbers",
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        calls++;
        return { sum: a + b };
      },
    });
    const agent = new LlmAgent({ name: "calc", model, instruction: "You add numbers.", tools: [add] });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
    const events: Event[] = [];
    for await (const event of runner.runAsync({
      userId: "u",
      sessionId: "s",
      newMessage: "2 + 3?",
      runConfig: { streamingMode: StreamingMode.SSE },
    }))
      events.push(event);
    await runner.close();

    expect(calls).toBe(1);
    const final = events.at(-1)!;
    expect(final.partial).toBeFalsy();
    expect(getTextOf(final.content)).toBe("The sum is 5.");
    expect(events.filter((e) => e.partial).map((e) => getTextOf(e.content))).toEqual(["The sum ", "is 5."]);
    expect(server.requests.every((r) => r.body.stream === true)).toBe(true);
    const firstBody = server.requests[0]!.body;
    expect(firstBody.system).toContain("You add numbers.");
    expect((firstBody.tools as Array<{ name: string; input_schema: Record<string, unknown> }>)[0]).toMatchObject({
      name: "add",
      input_schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    });
    const messages = server.lastBody.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1]!.content).toEqual([{ type: "tool_use", id: "toolu_42", name: "add", input: { a: 2, b: 3 } }]);
    expect(messages[2]!.content).toEqual([{ type: "tool_result", tool_use_id: "toolu_42", content: '{"sum":5}' }]);
  });
});
