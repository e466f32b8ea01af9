import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest, FinishReason, getTextOf, type LlmRequest, type LlmResponse } from "@agentkit/core";
import { AnthropicModel } from "../src/anthropic/index.js";
import { FakeAnthropicServer, streamEvents, usage } from "./fixtures/anthropic-server.js";
import { recordedReply } from "./fixtures/recorded-fixtures.js";

let server: FakeAnthropicServer;
let baseURL: string;

beforeEach(async () => {
  server = new FakeAnthropicServer();
  baseURL = await server.start();
});
afterEach(async () => {
  await server.close();
});

async function collect(request: LlmRequest): Promise<LlmResponse[]> {
  const model = new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL });
  const out: LlmResponse[] = [];
  for await (const response of model.generateContentAsync(request, true)) out.push(response);
  return out;
}

const hi = () => createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });

describe("AnthropicModel (streaming)", () => {
  it("yields partial text chunks whose join equals the final complete text", async () => {
    server.reply({
      kind: "sse",
      events: streamEvents([{ type: "text", chunks: ["Hel", "lo, ", "world"] }], "end_turn"),
    });
    const responses = await collect(hi());
    expect(server.lastBody.stream).toBe(true);
    const partials = responses.filter((r) => r.partial);
    const finals = responses.filter((r) => !r.partial);
    expect(partials.map((r) => getTextOf(r.content))).toEqual(["Hel", "lo, ", "world"]);
    expect(finals).toHaveLength(1);
    expect(responses.at(-1)).toBe(finals[0]);
    expect(finals[0]!.content).toEqual({ role: "model", parts: [{ text: "Hello, world" }] });
    expect(finals[0]!.finishReason).toBe(FinishReason.STOP);
    expect(finals[0]!.usageMetadata).toEqual({ promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 });
  });

  it("streams thoughts as partial thought chunks and keeps the signature on the final response", async () => {
    server.reply({
      kind: "sse",
      events: streamEvents(
        [
          { type: "thinking", chunks: ["Let me ", "think."], signature: "sig-xyz" },
          { type: "text", chunks: ["Answer."] },
        ],
        "end_turn",
      ),
    });
    const responses = await collect(hi());
    expect(responses.filter((r) => r.partial).map((r) => r.content!.parts)).toEqual([
      [{ text: "Let me ", thought: true }],
      [{ text: "think.", thought: true }],
      [{ text: "Answer." }],
    ]);
    expect(responses.at(-1)!.content!.parts).toEqual([
      { text: "Let me think.", thought: true, thoughtSignature: "sig-xyz" },
      { text: "Answer." },
    ]);
  });

  it("keeps a streamed redacted thinking block", async () => {
    const events = streamEvents([{ type: "text", chunks: ["ok"] }], "end_turn");
    const shifted = events.map((e) => ("index" in e ? { ...e, index: (e.index as number) + 1 } : e));
    shifted.splice(
      1,
      0,
      { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "SECRET" } },
      { type: "content_block_stop", index: 0 },
    );
    server.reply({ kind: "sse", events: shifted });
    const responses = await collect(hi());
    expect(responses.at(-1)!.content!.parts).toEqual([{ thought: true, thoughtSignature: "SECRET" }, { text: "ok" }]);
  });

  it("assembles tool inputs from input_json_delta, for parallel calls in block order", async () => {
    server.reply({
      kind: "sse",
      events: streamEvents(
        [
          { type: "text", chunks: ["Checking."] },
          {
            type: "tool_use",
            id: "toolu_1",
            name: "get_weather",
            jsonChunks: ['{"ci', 'ty": "Par', 'is", "days": [1,', "2]}"],
          },
          { type: "tool_use", id: "toolu_2", name: "get_time", jsonChunks: [] },
        ],
        "tool_use",
      ),
    });
    const responses = await collect(hi());
    const final = responses.at(-1)!;
    expect(final.partial).toBeUndefined();
    expect(final.content!.parts).toEqual([
      { text: "Checking." },
      { functionCall: { id: "toolu_1", name: "get_weather", args: { city: "Paris", days: [1, 2] } } },
      { functionCall: { id: "toolu_2", name: "get_time", args: {} } },
    ]);
    expect(final.finishReason).toBe(FinishReason.STOP);
    expect(responses.filter((r) => r.partial).every((r) => r.content!.parts!.every((p) => !p.functionCall))).toBe(true);
  });

  it("reports usage from message_start and message_delta, including cache tokens", async () => {
    server.reply({
      kind: "sse",
      events: streamEvents([{ type: "text", chunks: ["x"] }], "max_tokens", usage(3, 9, 50, 4)),
    });
    const final = (await collect(hi())).at(-1)!;
    expect(final.usageMetadata).toEqual({
      promptTokenCount: 57,
      candidatesTokenCount: 9,
      totalTokenCount: 66,
      cachedContentTokenCount: 50,
    });
    expect(final.finishReason).toBe(FinishReason.MAX_TOKENS);
  });

  it("surfaces an error event sent mid-stream as a typed error", async () => {
    const events = streamEvents([{ type: "text", chunks: ["par"] }], "end_turn").slice(0, 3);
    events.push({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    server.reply({ kind: "sse", events });
    const seen: LlmResponse[] = [];
    const model = new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL });
    await expect(
      (async () => {
        for await (const r of model.generateContentAsync(hi(), true)) seen.push(r);
      })(),
    ).rejects.toMatchObject({ name: "ProviderError", provider: "anthropic", category: "OVERLOADED", retryable: true });
    expect(seen.map((r) => getTextOf(r.content))).toEqual(["par"]);
  });
});

describe("AnthropicModel (streaming) replaying recorded transcripts", () => {
  it("streams __fixtures__/anthropic/stream-text.sse (with its ping event): partials join to the final text", async () => {
    server.reply(recordedReply("anthropic/stream-text.sse"));
    const responses = await collect(hi());
    expect(responses.filter((r) => r.partial).map((r) => getTextOf(r.content))).toEqual([
      "The capital",
      " of France is",
      " Paris.",
    ]);
    const final = responses.at(-1)!;
    expect(final.partial).toBeFalsy();
    expect(final.content).toEqual({ role: "model", parts: [{ text: "The capital of France is Paris." }] });
    expect(final.finishReason).toBe(FinishReason.STOP);
    expect(final.usageMetadata).toMatchObject({ promptTokenCount: 21, candidatesTokenCount: 11 });
  });

  it("assembles the parallel tool_use blocks of __fixtures__/anthropic/stream-parallel-tool-use.sse", async () => {
    server.reply(recordedReply("anthropic/stream-parallel-tool-use.sse"));
    const responses = await collect(hi());
    expect(responses.at(-1)!.content!.parts).toEqual([
      { text: "I'll check the weather in both cities." },
      { functionCall: { id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", args: { city: "Paris" } } },
      { functionCall: { id: "toolu_01Kx9sYdP2hWq4LmN6bV8cR3", name: "get_weather", args: { city: "Tokyo" } } },
    ]);
    expect(responses.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 472, candidatesTokenCount: 89 });
  });
});
