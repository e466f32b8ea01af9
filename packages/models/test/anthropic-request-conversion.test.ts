import { describe, expect, it } from "@jest/globals";
import { ConfigurationError, createLlmRequest } from "@agentkit/core";
import { toAnthropicMessages, toAnthropicRequest } from "../src/anthropic/request-conversion.js";
import { parseAnthropicModelOptions } from "../src/anthropic/anthropic-options.js";

const options = parseAnthropicModelOptions({ model: "claude-test" });

describe("Anthropic request conversion", () => {
  it("puts tool results before text in a user turn and drops thoughts without a signature", () => {
    const messages = toAnthropicMessages([
      { role: "user", parts: [{ text: "go" }] },
      {
        role: "model",
        parts: [{ text: "foreign thought", thought: true }, { functionCall: { id: "c1", name: "t", args: {} } }],
      },
      { role: "user", parts: [{ text: "also this" }] },
      { role: "user", parts: [{ functionResponse: { id: "c1", name: "t", response: { ok: true } } }] },
    ]);
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "t", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c1", content: '{"ok":true}' },
          { type: "text", text: "also this" },
        ],
      },
    ]);
  });

  it("rejects inline data Anthropic cannot take, naming the MIME type", () => {
    expect(() =>
      toAnthropicMessages([{ role: "user", parts: [{ inlineData: { mimeType: "audio/wav", data: "AAAA" } }] }]),
    ).toThrow(ConfigurationError);
    expect(() =>
      toAnthropicMessages([{ role: "user", parts: [{ inlineData: { mimeType: "audio/wav", data: "AAAA" } }] }]),
    ).toThrow(/audio\/wav/);
  });

  it("maps the output schema, tool choice and Gemini thinking budget", () => {
    const params = toAnthropicRequest(
      createLlmRequest({
        contents: [{ role: "user", parts: [{ text: "x" }] }],
        config: {
          responseJsonSchema: { type: "object", properties: { a: { type: "string" } } },
          tools: [{ functionDeclarations: [{ name: "only" }] }],
          toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["only"] } },
          thinkingConfig: { thinkingBudget: 1024 },
        },
      }),
      "anthropic/claude-x",
      options,
    );
    expect(params.model).toBe("claude-x");
    expect(params.output_config).toEqual({
      format: { type: "json_schema", schema: { type: "object", properties: { a: { type: "string" } } } },
    });
    expect(params.tool_choice).toEqual({ type: "tool", name: "only" });
    expect(params.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
  });
});
