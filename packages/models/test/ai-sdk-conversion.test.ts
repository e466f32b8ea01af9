import { describe, expect, it } from "@jest/globals";
import { createLlmRequest } from "@agentkit/core";
import {
  AiSdkStreamAccumulator,
  ConversionIssues,
  fromAiSdkResult,
  mapAiSdkFinishReason,
  toAiSdkCallOptions,
} from "../src/ai-sdk/index.js";

const lenient = () => new ConversionIssues("AiSdkModel", { enabled: false, failFast: true });
const usage = (input: number, output: number, reasoning?: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning },
});

describe("AI SDK request conversion", () => {
  const request = createLlmRequest({
    contents: [
      {
        role: "user",
        parts: [
          { text: "Look" },
          { inlineData: { mimeType: "image/png", data: "iVBO" } },
          { fileData: { fileUri: "https://x.test/a.pdf", mimeType: "application/pdf" } },
        ],
      },
      { role: "model", parts: [{ text: "hmm", thought: true }, { functionCall: { name: "lookup", args: { q: 1 } } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "lookup", response: { error: "not found" } } }, { text: "and?" }],
      },
    ],
    config: {
      systemInstruction: { parts: [{ text: "Sys" }] },
      stopSequences: ["END"],
      seed: 3,
      tools: [{ functionDeclarations: [{ name: "lookup" }] }, { googleSearch: {} }],
      toolConfig: { functionCallingConfig: { mode: "NONE" } },
      responseMimeType: "application/json",
    },
  });

  it("builds a v4 prompt: files as data/url parts, thoughts as reasoning, id-less calls paired by name, errors as error-json", () => {
    const issues = lenient();
    const options = toAiSdkCallOptions(request, { topK: 4 }, issues);
    expect(options.prompt).toEqual([
      { role: "system", content: "Sys" },
      {
        role: "user",
        content: [
          { type: "text", text: "Look" },
          { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBO" } },
          { type: "file", mediaType: "application/pdf", data: { type: "url", url: new URL("https://x.test/a.pdf") } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "hmm" },
          { type: "tool-call", toolCallId: "call_lookup_0", toolName: "lookup", input: { q: 1 } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_lookup_0",
            toolName: "lookup",
            output: { type: "error-json", value: { error: "not found" } },
          },
        ],
      },
      { role: "user", content: [{ type: "text", text: "and?" }] },
    ]);
    expect(options).toMatchObject({
      topK: 4,
      stopSequences: ["END"],
      seed: 3,
      toolChoice: { type: "none" },
      tools: [{ type: "function", name: "lookup", inputSchema: { type: "object", properties: {} } }],
      responseFormat: { type: "json" },
    });
    // The built-in search tool has no AI SDK counterpart: reported, not sent.
    expect(issues.list).toEqual([{ where: "config.tools[1]", problem: expect.stringContaining("googleSearch") }]);
  });

  it("uses the v3 file shape for v3 models", () => {
    const options = toAiSdkCallOptions(request, {}, lenient(), "v3");
    const user = options.prompt[1] as { content: Array<{ data: unknown }> };
    expect(user.content[1]!.data).toBe("iVBO");
    expect(user.content[2]!.data).toEqual(new URL("https://x.test/a.pdf"));
  });
});

describe("AI SDK response conversion", () => {
  it("maps unified finish reasons", () => {
    expect(
      ["stop", "tool-calls", "length", "content-filter", "error", "other"].map((r) =>
        mapAiSdkFinishReason({ unified: r as "stop", raw: r }),
      ),
    ).toEqual(["STOP", "STOP", "MAX_TOKENS", "SAFETY", "OTHER", "OTHER"]);
  });

  it("converts generate results: reasoning, text, calls (provider-executed ones left out), reasoning tokens", () => {
    const response = fromAiSdkResult(
      {
        content: [
          { type: "reasoning", text: "think" },
          { type: "text", text: "A" },
          { type: "text", text: "B" },
          { type: "tool-call", toolCallId: "t1", toolName: "f", input: '{"a":1}' },
          { type: "tool-call", toolCallId: "t2", toolName: "web_search", input: "{}", providerExecuted: true },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage: usage(5, 6, 2),
        warnings: [],
      } as never,
      lenient(),
    );
    expect(response).toEqual({
      content: {
        role: "model",
        parts: [
          { text: "think", thought: true },
          { text: "AB" },
          { functionCall: { id: "t1", name: "f", args: { a: 1 } } },
        ],
      },
      finishReason: "STOP",
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 6, totalTokenCount: 11, thoughtsTokenCount: 2 },
    });
  });

  it("streams reasoning and text partials and assembles tool inputs from deltas when no tool-call part arrives", () => {
    const acc = new AiSdkStreamAccumulator(lenient());
    const partials = [
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", modelId: "m-1" },
      { type: "reasoning-delta", id: "r", delta: "Let me" },
      { type: "text-delta", id: "x", delta: "Hi" },
      { type: "tool-input-start", id: "c1", toolName: "f" },
      { type: "tool-input-delta", id: "c1", delta: '{"a"' },
      { type: "tool-input-delta", id: "c1", delta: ":2}" },
      { type: "tool-input-end", id: "c1" },
      { type: "finish", usage: usage(1, 2), finishReason: { unified: "tool-calls", raw: undefined } },
    ]
      .map((p) => acc.push(p as never))
      .filter((r) => r !== undefined);
    expect(partials).toEqual([
      { content: { role: "model", parts: [{ text: "Let me", thought: true }] }, partial: true },
      { content: { role: "model", parts: [{ text: "Hi" }] }, partial: true },
    ]);
    expect(acc.finished).toBe(true);
    expect(acc.finish()).toEqual({
      content: {
        role: "model",
        parts: [
          { text: "Let me", thought: true },
          { text: "Hi" },
          { functionCall: { id: "c1", name: "f", args: { a: 2 } } },
        ],
      },
      finishReason: "STOP",
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2, totalTokenCount: 3 },
      modelVersion: "m-1",
    });
  });
});

describe("AI SDK reasoning metadata round trip", () => {
  const anthropicMeta = { anthropic: { signature: "sig-123" } };

  it("keeps a reasoning part's provider metadata as its thoughtSignature and sends it back as providerOptions", () => {
    const response = fromAiSdkResult(
      {
        content: [
          { type: "reasoning", text: "Let me think.", providerMetadata: anthropicMeta },
          { type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: "REDACTED" } } },
          { type: "text", text: "42" },
        ],
        finishReason: { unified: "stop", raw: "end_turn" },
        usage: usage(1, 1),
        warnings: [],
      } as never,
      lenient(),
    );
    const parts = response.content!.parts!;
    expect(parts.map((p) => [p.text, p.thought, typeof p.thoughtSignature])).toEqual([
      ["Let me think.", true, "string"],
      ["", true, "string"],
      ["42", undefined, "undefined"],
    ]);
    const options = toAiSdkCallOptions(
      createLlmRequest({
        contents: [
          { role: "user", parts: [{ text: "q" }] },
          { role: "model", parts: [...parts, { text: "foreign", thought: true, thoughtSignature: "Z2VtaW5p" }] },
        ],
      }),
      {},
      lenient(),
    );
    expect(options.prompt[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "Let me think.", providerOptions: anthropicMeta },
        { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "REDACTED" } } },
        { type: "text", text: "42" },
        // Another adapter's signature is meaningless to the AI SDK provider: text only.
        { type: "reasoning", text: "foreign" },
      ],
    });
  });

  it("collects the metadata of a streamed reasoning block (start, deltas, end) onto its final part", () => {
    const acc = new AiSdkStreamAccumulator(lenient());
    for (const p of [
      { type: "reasoning-start", id: "r1" },
      { type: "reasoning-delta", id: "r1", delta: "Hmm, " },
      { type: "reasoning-delta", id: "r1", delta: "yes.", providerMetadata: { anthropic: { signature: "sig-9" } } },
      { type: "reasoning-end", id: "r1" },
      { type: "reasoning-start", id: "r2" },
      { type: "reasoning-end", id: "r2" },
      { type: "text-delta", id: "t", delta: "Answer" },
      { type: "finish", usage: usage(1, 1), finishReason: { unified: "stop", raw: undefined } },
    ]) {
      acc.push(p as never);
    }
    const parts = acc.finish().content!.parts!;
    expect(parts).toHaveLength(2);
    expect(parts[0]).toMatchObject({ text: "Hmm, yes.", thought: true });
    const back = toAiSdkCallOptions(createLlmRequest({ contents: [{ role: "model", parts }] }), {}, lenient());
    expect(back.prompt[0]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "Hmm, yes.", providerOptions: { anthropic: { signature: "sig-9" } } },
        { type: "text", text: "Answer" },
      ],
    });
  });
});
