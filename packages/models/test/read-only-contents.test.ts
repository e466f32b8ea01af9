// The adapters that declare `readsContentsOnly` get the flow's shared history array: their
// request conversion must only read it (deeply frozen here, so any in-place edit throws) and
// give the same vendor request as for a private copy.
import { describe, expect, it } from "@jest/globals";
import { BaseLlm, createLlmRequest, type Content, type LlmResponse } from "@agentkit/core";
import { AnthropicModel } from "../src/anthropic/anthropic-model.js";
import { parseAnthropicModelOptions } from "../src/anthropic/anthropic-options.js";
import { toAnthropicRequest } from "../src/anthropic/request-conversion.js";
import { Gemini } from "../src/gemini/gemini-model.js";
import { toGeminiRequest } from "../src/gemini/request-conversion.js";
import { OpenAIModel } from "../src/openai/openai-model.js";
import { toChatCompletionParams } from "../src/openai/request-conversion.js";
import { toResponsesParams } from "../src/openai/responses-request-conversion.js";
import { LazyModel } from "../src/registry/lazy-model.js";

function history(): Content[] {
  return [
    { role: "user", parts: [{ text: "weather in Paris and Rome?" }] },
    {
      role: "model",
      parts: [
        { text: "Looking.", thought: true },
        { functionCall: { id: "adk-1", name: "weather", args: { city: "Paris", days: [1, 2] } } },
        { functionCall: { id: "call_2", name: "weather", args: { city: "Rome" } } },
      ],
    },
    {
      role: "user",
      parts: [
        { functionResponse: { id: "adk-1", name: "weather", response: { temp: 21, sky: ["sun"] } } },
        { functionResponse: { id: "call_2", name: "weather", response: { temp: 25 } } },
      ],
    },
    { role: "model", parts: [{ text: "Sunny in both." }] },
    { role: "user", parts: [{ text: "and this?" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] },
  ];
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const conversions: [string, (contents: Content[]) => unknown][] = [
  ["gemini", (contents) => toGeminiRequest(createLlmRequest({ contents }), "gemini-2.5-flash", { vertex: false })],
  [
    "gemini (vertex)",
    (contents) => toGeminiRequest(createLlmRequest({ contents }), "gemini-2.5-flash", { vertex: true }),
  ],
  ["openai chat", (contents) => toChatCompletionParams(createLlmRequest({ contents }), "gpt-4o")],
  ["openai responses", (contents) => toResponsesParams(createLlmRequest({ contents }), "gpt-4o")],
  [
    "anthropic",
    (contents) =>
      toAnthropicRequest(
        createLlmRequest({ contents }),
        "claude-sonnet-4-5",
        parseAnthropicModelOptions({ model: "claude-sonnet-4-5", apiKey: "test-key" }),
      ),
  ],
];

describe("adapters that read request contents only", () => {
  it("declare it", () => {
    expect(new Gemini({ model: "gemini-2.5-flash", apiKey: "test-key" }).readsContentsOnly).toBe(true);
    expect(new OpenAIModel({ model: "gpt-4o", apiKey: "test-key" }).readsContentsOnly).toBe(true);
    expect(new AnthropicModel({ model: "claude-sonnet-4-5", apiKey: "test-key" }).readsContentsOnly).toBe(true);
  });

  it("a lazily built model answers for the model it built, and no before it is built", async () => {
    const gemini = new LazyModel(
      "gemini-2.5-flash",
      async () => new Gemini({ model: "gemini-2.5-flash", apiKey: "k" }),
    );
    expect(gemini.readsContentsOnly).toBe(false);
    await gemini.getModel();
    expect(gemini.readsContentsOnly).toBe(true);
    await gemini.close();
    expect(gemini.readsContentsOnly).toBe(false);

    class Copying extends BaseLlm {
      async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {}
    }
    const other = new LazyModel("other", async () => new Copying({ model: "other" }));
    await other.getModel();
    expect(other.readsContentsOnly).toBe(false);
  });

  it.each(conversions)("%s: a frozen shared history converts as a private copy does, untouched", (_, convert) => {
    const shared = deepFreeze(history());
    const before = JSON.stringify(shared);
    const fromShared = convert(shared);
    expect(fromShared).toEqual(convert(history()));
    expect(JSON.stringify(shared)).toBe(before);
    // Converting the same shared array again (the next request of the session) gives the same.
    expect(convert(shared)).toEqual(fromShared);
  });
});
