import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { FunctionTool, InMemoryRunner, LlmAgent, StreamingMode, getTextOf } from "@agentkit/core";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeOpenAIServer, chunk, completion } from "./fixtures/openai-server.js";
import { collect } from "@agentkit/test-support/collect";

describe("OpenAIModel inside an LlmAgent run", () => {
  let server: FakeOpenAIServer;
  let model: OpenAIModel;
  const calls: string[] = [];

  beforeEach(async () => {
    calls.length = 0;
    server = new FakeOpenAIServer();
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: await server.start() });
  });
  afterEach(async () => {
    await model.close();
    await server.close();
  });

  function agent(): LlmAgent {
    const weather = new FunctionTool({
      name: "get_weather",
      description: "Weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: (args) => {
        calls.push(String(args.city));
        return { city: args.city, sky: args.city === "Oslo" ? "snow" : "sun" };
      },
    });
    return new LlmAgent({ name: "assistant", model, instruction: "Answer about the weather.", tools: [weather] });
  }

  it("runs two parallel tool calls and returns their results to the model in call order", async () => {
    server.reply(
      {
        kind: "json",
        body: completion(
          {
            content: null,
            tool_calls: [
              { id: "call_o", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
              { id: "call_r", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
            ],
          },
          { finishReason: "tool_calls" },
        ),
      },
      { kind: "json", body: completion({ content: "Snow in Oslo, sun in Rome." }) },
    );
    const runner = new InMemoryRunner({ agent: agent(), appName: "app" });
    const events = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: "Weather in Oslo and Rome?",
        runConfig: { autoCreateSession: true },
      }),
    );
    expect(calls.sort()).toEqual(["Oslo", "Rome"]);
    expect(getTextOf(events.at(-1)!.content)).toBe("Snow in Oslo, sun in Rome.");
    expect(events.at(-1)!.usageMetadata?.totalTokenCount).toBe(15);

    const second = server.requests[1]!.body;
    const messages = second.messages as { role: string; content?: unknown; tool_call_id?: string }[];
    expect(messages[0]).toEqual({ role: "system", content: expect.stringContaining("Answer about the weather.") });
    expect(messages.filter((m) => m.role === "tool")).toEqual([
      { role: "tool", tool_call_id: "call_o", content: '{"city":"Oslo","sky":"snow"}' },
      { role: "tool", tool_call_id: "call_r", content: '{"city":"Rome","sky":"sun"}' },
    ]);
    expect((second.tools as unknown[]).length).toBe(1);
  });

  it("streams partial events in SSE mode, then the complete one", async () => {
    server.reply({
      kind: "sse",
      chunks: [chunk({ content: "Sunny " }), chunk({ content: "today." }), chunk({}, { finishReason: "stop" })],
    });
    const runner = new InMemoryRunner({ agent: agent(), appName: "app" });
    const events = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: "Weather?",
        runConfig: { streamingMode: StreamingMode.SSE, autoCreateSession: true },
      }),
    );
    const modelEvents = events.filter((e) => e.author === "assistant");
    expect(modelEvents.map((e) => e.partial === true)).toEqual([true, true, false]);
    expect(getTextOf(modelEvents.at(-1)!.content)).toBe("Sunny today.");
  });
});
