import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest, getTextOf } from "@agentkit/core";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeOpenAIServer, chunk } from "./fixtures/openai-server.js";
import { recordedReply } from "./fixtures/recorded-fixtures.js";
import { collect } from "@agentkit/test-support/collect";

const ask = createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });

describe("OpenAIModel (chat completions, streaming)", () => {
  let server: FakeOpenAIServer;
  let model: OpenAIModel;

  beforeEach(async () => {
    server = new FakeOpenAIServer();
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: await server.start() });
  });
  afterEach(async () => {
    await model.close();
    await server.close();
  });

  it("yields text partials, then one complete response whose text is the partials joined", async () => {
    server.reply({
      kind: "sse",
      delayMs: 2,
      chunks: [
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Hel" }),
        chunk({ content: "lo, " }),
        chunk({ content: "world" }),
        chunk({}, { finishReason: "stop" }),
        chunk(
          {},
          {
            noChoices: true,
            usage: {
              prompt_tokens: 3,
              completion_tokens: 4,
              total_tokens: 7,
              prompt_tokens_details: { cached_tokens: 1 },
            },
          },
        ),
      ],
    });
    const responses = await collect(model.generateContentAsync(ask, true));
    const partials = responses.filter((r) => r.partial);
    expect(partials.map((r) => getTextOf(r.content))).toEqual(["Hel", "lo, ", "world"]);
    expect(responses.slice(0, -1).every((r) => r.partial === true)).toBe(true);
    const final = responses.at(-1)!;
    expect(final.partial).toBeUndefined();
    expect(final).toEqual({
      content: { role: "model", parts: [{ text: "Hello, world" }] },
      finishReason: "STOP",
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7, cachedContentTokenCount: 1 },
      modelVersion: "gpt-4o-mini-2024-07-18",
    });
    expect(server.lastBody).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("assembles tool-call deltas by index into function calls on the final response", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        chunk({
          role: "assistant",
          content: null,
          tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "lookup", arguments: "" } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }),
        chunk({
          tool_calls: [
            { index: 1, id: "call_b", type: "function", function: { name: "weather", arguments: '{"city"' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: ':"Oslo"}' } }] }),
        chunk({}, { finishReason: "tool_calls" }),
        chunk({}, { noChoices: true, usage: { prompt_tokens: 9, completion_tokens: 20, total_tokens: 29 } }),
      ],
    });
    const responses = await collect(model.generateContentAsync(ask, true));
    expect(responses).toHaveLength(1);
    expect(responses[0]).toEqual({
      content: {
        role: "model",
        parts: [
          { functionCall: { id: "call_a", name: "lookup", args: { q: "x" } } },
          { functionCall: { id: "call_b", name: "weather", args: { city: "Oslo" } } },
        ],
      },
      finishReason: "STOP",
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 20, totalTokenCount: 29 },
      modelVersion: "gpt-4o-mini-2024-07-18",
    });
  });

  it("streams text before a tool call and keeps both on the final response", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        chunk({ content: "Let me check." }),
        chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }] }),
        chunk({}, { finishReason: "tool_calls" }),
      ],
    });
    const responses = await collect(model.generateContentAsync(ask, true));
    expect(responses.map((r) => r.partial === true)).toEqual([true, false]);
    expect(responses[1]!.content!.parts).toEqual([
      { text: "Let me check." },
      { functionCall: { id: "call_1", name: "f", args: {} } },
    ]);
  });
});

describe("OpenAIModel (chat completions, streaming) replaying recorded transcripts", () => {
  let server: FakeOpenAIServer;
  let model: OpenAIModel;

  beforeEach(async () => {
    server = new FakeOpenAIServer();
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: await server.start() });
  });
  afterEach(async () => {
    await model.close();
    await server.close();
  });

  it("streams __fixtures__/openai/chat-stream-text.sse: partials join to the final text, usage from the last chunk", async () => {
    server.reply(recordedReply("openai/chat-stream-text.sse"));
    const responses = await collect(model.generateContentAsync(ask, true));
    const partials = responses.filter((r) => r.partial).map((r) => getTextOf(r.content));
    expect(partials).toEqual(["The", " capital", " of", " France", " is", " Paris", "."]);
    expect(responses.at(-1)).toEqual({
      content: { role: "model", parts: [{ text: "The capital of France is Paris." }] },
      finishReason: "STOP",
      usageMetadata: {
        promptTokenCount: 14,
        candidatesTokenCount: 8,
        totalTokenCount: 22,
        cachedContentTokenCount: 0,
        thoughtsTokenCount: 0,
      },
      modelVersion: "gpt-4o-mini-2024-07-18",
    });
  });

  it("assembles the parallel tool calls of __fixtures__/openai/chat-stream-parallel-tool-calls.sse", async () => {
    server.reply(recordedReply("openai/chat-stream-parallel-tool-calls.sse"));
    const responses = await collect(model.generateContentAsync(ask, true));
    expect(responses).toHaveLength(1);
    expect(responses[0]!.content!.parts).toEqual([
      { functionCall: { id: "call_Ab3dE5fG7hI9jK1lM3nO5pQ7", name: "get_weather", args: { city: "Paris" } } },
      { functionCall: { id: "call_Rs7tU9vW1xY3zA5bC7dE9fG1", name: "get_weather", args: { city: "Tokyo" } } },
    ]);
    expect(responses[0]!.usageMetadata?.totalTokenCount).toBe(128);
  });
});
