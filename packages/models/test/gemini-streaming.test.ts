import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest, getTextOf, type LlmRequest, type LlmResponse } from "@agentkit/core";
import { ProviderError } from "../src/index.js";
import { Gemini } from "../src/gemini/index.js";
import { FakeGeminiServer, sseFixture } from "./fixtures/gemini-server.js";
import { collect } from "@agentkit/test-support/collect";

let server: FakeGeminiServer;
let baseUrl: string;

beforeEach(async () => {
  server = new FakeGeminiServer();
  baseUrl = await server.start();
});
afterEach(async () => {
  await server.close();
});

function request(init: Partial<LlmRequest> = {}): LlmRequest {
  return createLlmRequest({ contents: [{ role: "user", parts: [{ text: "A haiku, please." }] }], ...init });
}

const chunk = (parts: unknown[], extra: { finishReason?: string; usage?: Record<string, unknown> } = {}) => ({
  candidates: [
    {
      content: { role: "model", parts },
      index: 0,
      ...(extra.finishReason ? { finishReason: extra.finishReason } : {}),
    },
  ],
  usageMetadata: extra.usage ?? { promptTokenCount: 8, totalTokenCount: 8 },
  modelVersion: "gemini-2.5-flash",
});

describe("Gemini streaming", () => {
  it("yields thought and text partials, then one final response whose text is their concatenation", async () => {
    server.reply({ kind: "raw-sse", body: sseFixture("stream-haiku-thoughts.sse") });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const responses = await collect(
      model.generateContentAsync(request({ config: { thinkingConfig: { includeThoughts: true } } }), true),
    );
    expect(server.requests[0]!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    expect(server.lastBody.generationConfig).toMatchObject({ thinkingConfig: { includeThoughts: true } });

    const partials = responses.filter((r) => r.partial);
    const final = responses.at(-1)!;
    expect(partials).toHaveLength(4);
    expect(partials[0]!.content!.parts![0]).toEqual({
      text: "**Planning the answer**\n\nThe user asks for a haiku.",
      thought: true,
    });
    expect(final.partial).toBeUndefined();
    const textPartials = partials
      .filter((p) => !p.content!.parts![0]!.thought)
      .map((p) => getTextOf(p.content))
      .join("");
    expect(getTextOf(final.content)).toBe(textPartials);
    expect(getTextOf(final.content)).toBe("Autumn moonlight—\na worm digs silently\ninto the chestnut.");
    expect(final.content!.parts).toEqual([
      { text: "**Planning the answer**\n\nThe user asks for a haiku.", thought: true },
      {
        text: "Autumn moonlight—\na worm digs silently\ninto the chestnut.",
        thoughtSignature: "Ci0BVKhc7sig-stream-01",
      },
    ]);
    expect(final).toMatchObject({
      finishReason: "STOP",
      usageMetadata: { candidatesTokenCount: 17, thoughtsTokenCount: 36, totalTokenCount: 61 },
    });
  });

  it("leaves a function call without id to the flow and keeps its thought signature", async () => {
    server.reply({ kind: "raw-sse", body: sseFixture("stream-function-call-no-id.sse") });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const responses = await collect(model.generateContentAsync(request(), true));
    expect(responses).toHaveLength(1);
    expect(responses[0]!.content!.parts).toEqual([
      { functionCall: { name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "Ci0BVKhc7sig-stream-fc" },
    ]);
  });

  it("assembles text and parallel calls streamed over several chunks, attaching a trailing signature to the text", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        chunk([{ text: "Checking " }]),
        chunk([{ text: "both." }]),
        chunk([{ text: "", thoughtSignature: "sig-tail" }]),
        chunk(
          [
            { functionCall: { id: "a", name: "f", args: { x: 1 } } },
            { functionCall: { id: "b", name: "f", args: { x: 2 } } },
          ],
          { finishReason: "STOP" },
        ),
      ],
    });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const responses = await collect(model.generateContentAsync(request(), true));
    expect(responses.filter((r) => r.partial).map((r) => getTextOf(r.content))).toEqual(["Checking ", "both."]);
    expect(responses.at(-1)!.content!.parts).toEqual([
      { text: "Checking both.", thoughtSignature: "sig-tail" },
      { functionCall: { id: "a", name: "f", args: { x: 1 } } },
      { functionCall: { id: "b", name: "f", args: { x: 2 } } },
    ]);
  });

  it("reports a safety stop in the stream as errorCode on the final response", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        chunk([{ text: "Here is how" }]),
        { candidates: [{ finishReason: "SAFETY", index: 0 }], usageMetadata: { promptTokenCount: 8 } },
      ],
    });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const final = (await collect(model.generateContentAsync(request(), true))).at(-1)!;
    expect(final).toMatchObject({ finishReason: "SAFETY", errorCode: "SAFETY" });
    expect(getTextOf(final.content)).toBe("Here is how");
  });

  it("throws a retryable NETWORK error when the connection drops mid-stream, after the partials", async () => {
    server.reply({ kind: "sse", chunks: [chunk([{ text: "Half an " }])], dropAfter: true });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const seen: LlmResponse[] = [];
    const error = await (async () => {
      for await (const r of model.generateContentAsync(request(), true)) seen.push(r);
    })().catch((e: unknown) => e);
    expect(seen.map((r) => getTextOf(r.content))).toEqual(["Half an "]);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).category).toBe("NETWORK");
    expect((error as ProviderError).retryable).toBe(true);
  });

  it("throws NETWORK when the stream ends cleanly but without a finish reason", async () => {
    server.reply({ kind: "sse", chunks: [chunk([{ text: "cut" }])] });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    await expect(collect(model.generateContentAsync(request(), true))).rejects.toMatchObject({
      category: "NETWORK",
      message: expect.stringMatching(/before a finish reason/),
    });
  });

  it("cancels a stream on AbortSignal: CANCELLED, and the server sees the request go away", async () => {
    server.reply({ kind: "sse", chunks: [chunk([{ text: "Starting" }])], hangAfter: true });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const r of model.generateContentAsync(request(), true, { signal: controller.signal })) {
        seen.push(getTextOf(r.content));
        controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["Starting"]);
    expect(error).toMatchObject({ category: "CANCELLED" });
    await server.stalledClosed;
  });

  it("ends the HTTP stream when the consumer stops early", async () => {
    server.reply({ kind: "sse", chunks: [chunk([{ text: "one" }])], hangAfter: true });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    for await (const r of model.generateContentAsync(request(), true)) {
      expect(getTextOf(r.content)).toBe("one");
      break;
    }
    await server.stalledClosed;
  });

  it("times out a stalled call with a retryable TIMEOUT error", async () => {
    server.reply({ kind: "hang" });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl, timeoutMs: 150 });
    // The server never answers: only the timeout ends the call.
    const error = await collect(model.generateContentAsync(request())).catch((e: unknown) => e);
    expect(error).toMatchObject({ category: "TIMEOUT", retryable: true });
    // The held request is released (on a loaded machine the timeout can expire before it arrives).
    if (server.requests.length > 0) await server.stalledClosed;
  });

  it("aborts a non-streaming call that is waiting for its response", async () => {
    server.reply({ kind: "hang" });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const controller = new AbortController();
    const pending = collect(model.generateContentAsync(request({ config: { abortSignal: controller.signal } })));
    await server.stalledRequest;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ category: "CANCELLED" });
  });

  it("keeps code execution parts and the grounding of the last chunk in the final response", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        chunk([{ executableCode: { language: "PYTHON", code: "print(6*7)" } }]),
        chunk([{ codeExecutionResult: { outcome: "OUTCOME_OK", output: "42\n" } }]),
        {
          ...chunk([{ text: "It is 42." }], { finishReason: "STOP" }),
          candidates: [
            {
              content: { role: "model", parts: [{ text: "It is 42." }] },
              finishReason: "STOP",
              index: 0,
              groundingMetadata: { webSearchQueries: ["6 times 7"] },
            },
          ],
        },
      ],
    });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const responses = await collect(
      model.generateContentAsync(request({ config: { tools: [{ codeExecution: {} }, { googleSearch: {} }] } }), true),
    );
    expect(responses.filter((r) => r.partial).map((r) => getTextOf(r.content))).toEqual(["It is 42."]);
    expect(responses.at(-1)!.content!.parts).toEqual([
      { executableCode: { language: "PYTHON", code: "print(6*7)" } },
      { codeExecutionResult: { outcome: "OUTCOME_OK", output: "42\n" } },
      { text: "It is 42." },
    ]);
    expect(responses.at(-1)!.groundingMetadata).toEqual({ webSearchQueries: ["6 times 7"] });
  });

  it("reports a prompt blocked in the stream as errorCode", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        { promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } },
      ],
    });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const responses = await collect(model.generateContentAsync(request(), true));
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({
      errorCode: "SAFETY",
      errorMessage: expect.stringMatching(/blocked the prompt/),
    });
  });

  it("streams a plain final answer whose text equals the partials for several chunks", async () => {
    const pieces = ["The ", "quick ", "brown ", "fox."];
    server.reply({
      kind: "sse",
      chunks: pieces.map((t, i) =>
        chunk(
          [{ text: t }],
          i === pieces.length - 1
            ? { finishReason: "STOP", usage: { promptTokenCount: 4, candidatesTokenCount: 4, totalTokenCount: 8 } }
            : {},
        ),
      ),
    });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const responses = await collect(model.generateContentAsync(request(), true));
    expect(responses.filter((r) => r.partial).map((r) => getTextOf(r.content))).toEqual(pieces);
    expect(getTextOf(responses.at(-1)!.content)).toBe(pieces.join(""));
    expect(responses.at(-1)!.usageMetadata).toEqual({
      promptTokenCount: 4,
      candidatesTokenCount: 4,
      totalTokenCount: 8,
    });
  });
});
