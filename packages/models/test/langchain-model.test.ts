import { describe, expect, it } from "@jest/globals";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { SimpleChatModel } from "@langchain/core/language_models/chat_models";

/** A chat model without bindTools: echoes a fixed reply. */
class NoToolsChatModel extends SimpleChatModel {
  override _llmType(): string {
    return "no-tools";
  }
  override async _call(): Promise<string> {
    return "x";
  }
}
import { LangChainModel } from "../src/langchain/index.js";
import { collect } from "@agentkit/test-support/collect";

describe("LangChainModel", () => {
  it("invokes the wrapped chat model and returns its text", async () => {
    const model = new LangChainModel({ model: new FakeListChatModel({ responses: ["hello there"] }) });
    const out = await collect(
      model.generateContentAsync({ contents: [{ role: "user", parts: [{ text: "hi" }] }] } as never),
    );
    expect(out).toHaveLength(1);
    expect(out[0]?.content?.parts?.[0]?.text).toBe("hello there");
  });

  it("streams partial chunks then the complete text", async () => {
    const model = new LangChainModel({ model: new FakeListChatModel({ responses: ["abc"] }) });
    const out = await collect(
      model.generateContentAsync({ contents: [{ role: "user", parts: [{ text: "hi" }] }] } as never, true),
    );
    const partials = out
      .filter((r) => r.partial === true)
      .map((r) => r.content?.parts?.[0]?.text)
      .join("");
    expect(partials).toBe("abc");
    expect(out.at(-1)?.partial).toBeUndefined();
    expect(out.at(-1)?.content?.parts?.[0]?.text).toBe("abc");
  });
});

describe("LangChainModel tools", () => {
  it("throws ConfigurationError when tools are requested from a model without bindTools", async () => {
    const model = new LangChainModel({ model: new NoToolsChatModel({}) });
    const request = {
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      config: {
        tools: [{ functionDeclarations: [{ name: "f", description: "d", parametersJsonSchema: { type: "object" } }] }],
      },
    };
    await expect(collect(model.generateContentAsync(request as never))).rejects.toMatchObject({
      code: "CONFIGURATION_ERROR",
    });
  });

  it("converts function calls and responses to AIMessage tool_calls and ToolMessage", async () => {
    const { toLangChainMessages } = await import("../src/langchain/index.js");
    const messages = toLangChainMessages({
      contents: [
        { role: "user", parts: [{ text: "weather?" }] },
        { role: "model", parts: [{ functionCall: { id: "c1", name: "get_weather", args: { city: "Paris" } } }] },
        { role: "user", parts: [{ functionResponse: { id: "c1", name: "get_weather", response: { temp: 20 } } }] },
      ],
    } as never);
    expect(messages.map((m) => m.getType())).toEqual(["human", "ai", "tool"]);
    expect((messages[1] as unknown as { tool_calls: unknown[] }).tool_calls).toEqual([
      { id: "c1", name: "get_weather", args: { city: "Paris" }, type: "tool_call" },
    ]);
    expect((messages[2] as unknown as { tool_call_id: string }).tool_call_id).toBe("c1");
  });
});

describe("LangChain response conversion", () => {
  it("maps reasoning blocks, tool calls with ids, invalid tool calls and usage details", async () => {
    const { AIMessage } = await import("@langchain/core/messages");
    const { ConversionIssues, fromAiMessage } = await import("../src/langchain/index.js");
    const message = new AIMessage({
      content: [
        { type: "reasoning", reasoning: "hmm" },
        { type: "text", text: "Calling." },
      ],
      tool_calls: [{ id: "t1", name: "f", args: { a: 1 }, type: "tool_call" }],
      invalid_tool_calls: [{ id: "t2", name: "g", args: "{oops", error: "bad json", type: "invalid_tool_call" }],
      usage_metadata: {
        input_tokens: 4,
        output_tokens: 6,
        total_tokens: 10,
        input_token_details: { cache_read: 2 },
        output_token_details: { reasoning: 3 },
      },
      response_metadata: { stop_reason: "tool_use", model: "claude-x" },
    });
    const lenient = new ConversionIssues("LangChainModel", { enabled: false, failFast: true });
    expect(fromAiMessage(message, lenient)).toEqual({
      content: {
        role: "model",
        parts: [
          { text: "hmm", thought: true },
          { text: "Calling." },
          { functionCall: { id: "t1", name: "f", args: { a: 1 } } },
          { functionCall: { id: "t2", name: "g", args: {} } },
        ],
      },
      finishReason: "STOP",
      usageMetadata: {
        promptTokenCount: 4,
        candidatesTokenCount: 6,
        totalTokenCount: 10,
        cachedContentTokenCount: 2,
        thoughtsTokenCount: 3,
      },
      modelVersion: "claude-x",
      errorCode: "MALFORMED_FUNCTION_CALL",
      errorMessage: expect.stringContaining("{oops"),
    });
    expect(() =>
      fromAiMessage(message, new ConversionIssues("LangChainModel", { enabled: true, failFast: true })),
    ).toThrow(/\{oops/);
  });

  it("drops thoughts from history and sends images as image_url blocks", async () => {
    const { toLangChainMessages } = await import("../src/langchain/index.js");
    const messages = toLangChainMessages({
      contents: [
        { role: "user", parts: [{ text: "see" }, { inlineData: { mimeType: "image/png", data: "iVBO" } }] },
        { role: "model", parts: [{ text: "secret", thought: true }, { text: "A cat." }] },
      ],
      config: {},
    } as never);
    expect(messages[0]!.content).toEqual([
      { type: "text", text: "see" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBO" } },
    ]);
    expect(messages[1]!.content).toBe("A cat.");
  });
});

/** Records the sampling fields it was built with (as Anthropic / Google chat models hold them). */
class SamplingChatModel extends SimpleChatModel {
  static built: Array<Record<string, unknown>> = [];
  temperature?: number;
  topK?: number;
  topP?: number;
  maxOutputTokens?: number;
  constructor(fields: { temperature?: number; topK?: number; topP?: number; maxOutputTokens?: number }) {
    super({});
    Object.assign(this, fields);
    this.lc_kwargs = { ...fields };
  }
  override _llmType(): string {
    return "sampling";
  }
  override async _call(): Promise<string> {
    SamplingChatModel.built.push({
      temperature: this.temperature,
      topK: this.topK,
      topP: this.topP,
      maxOutputTokens: this.maxOutputTokens,
    });
    return "ok";
  }
}

describe("LangChainModel adapter properties", () => {
  it("applies sampling to a copy of the chat model (topK and maxOutputTokens where the model has them), leaving the original alone", async () => {
    SamplingChatModel.built = [];
    const original = new SamplingChatModel({ temperature: 1 });
    const model = new LangChainModel({ model: original, temperature: 0.2, topK: 7, maxTokens: 99 });
    await collect(
      model.generateContentAsync({ contents: [{ role: "user", parts: [{ text: "hi" }] }], config: {} } as never),
    );
    await collect(
      model.generateContentAsync({
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
        config: { topK: 2 },
      } as never),
    );
    expect(SamplingChatModel.built).toEqual([
      { temperature: 0.2, topK: 7, topP: undefined, maxOutputTokens: 99 },
      { temperature: 0.2, topK: 2, topP: undefined, maxOutputTokens: 99 },
    ]);
    expect(original.temperature).toBe(1);
  });

  it("validation without failFast collects every unconvertible part into one MessageConversionError", async () => {
    const model = new LangChainModel({
      model: new FakeListChatModel({ responses: ["x"] }),
      validation: { enabled: true, failFast: false },
    });
    const request = {
      contents: [
        { role: "user", parts: [{ text: "a" }, { inlineData: { mimeType: "audio/wav", data: "UklG" } }] },
        { role: "model", parts: [{ executableCode: { code: "1" } }] },
      ],
      config: {},
    };
    const error = await collect(model.generateContentAsync(request as never)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MESSAGE_CONVERSION_ERROR" });
    expect((error as { issues: Array<{ where: string }> }).issues.map((i) => i.where)).toEqual([
      "contents[0].parts[1]",
      "contents[1].parts[0]",
    ]);
  });
});

describe("LangChain thinking blocks across turns", () => {
  it("keeps signed and redacted thinking blocks in thoughtSignature and sends them back verbatim before the text", async () => {
    const { AIMessage } = await import("@langchain/core/messages");
    const { ConversionIssues, fromAiMessage, toLangChainMessages } = await import("../src/langchain/index.js");
    const message = new AIMessage({
      content: [
        { type: "thinking", thinking: "Let me check.", signature: "sig-abc" },
        { type: "redacted_thinking", data: "ENCRYPTED" },
        { type: "text", text: "Checking." },
      ],
      tool_calls: [{ id: "toolu_1", name: "weather", args: { city: "Oslo" }, type: "tool_call" }],
    });
    const response = fromAiMessage(message, new ConversionIssues("LangChainModel", { enabled: false, failFast: true }));
    const parts = response.content!.parts!;
    expect(parts.map((p) => [p.text, p.thought === true, p.thoughtSignature?.startsWith("lc1:") ?? false])).toEqual([
      ["Let me check.", true, true],
      ["", true, true],
      ["Checking.", false, false],
      [undefined, false, false],
    ]);
    const [back] = toLangChainMessages({ contents: [{ role: "model", parts }], config: {} } as never);
    expect(back!.content).toEqual([
      { type: "thinking", thinking: "Let me check.", signature: "sig-abc" },
      { type: "redacted_thinking", data: "ENCRYPTED" },
      { type: "text", text: "Checking." },
    ]);
    expect((back as unknown as { tool_calls: Array<{ id: string }> }).tool_calls.map((c) => c.id)).toEqual(["toolu_1"]);
  });
});
