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
import type { LlmResponse } from "@agentkit/core";
import { LangChainModel } from "../src/langchain/index.js";

async function collect(gen: AsyncGenerator<LlmResponse>): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const r of gen) out.push(r);
  return out;
}

describe("LangChainModel", () => {
  it("invokes the wrapped chat model and returns its text", async () => {
    const model = new LangChainModel({ model: new FakeListChatModel({ responses: ["hello there"] }) });
    const out = await collect(model.generateContentAsync({ contents: [{ role: "user", parts: [{ text: "hi" }] }] } as never));
    expect(out).toHaveLength(1);
    expect(out[0]?.content?.parts?.[0]?.text).toBe("hello there");
  });

  it("streams partial chunks then the complete text", async () => {
    const model = new LangChainModel({ model: new FakeListChatModel({ responses: ["abc"] }) });
    const out = await collect(model.generateContentAsync({ contents: [{ role: "user", parts: [{ text: "hi" }] }] } as never, true));
    const partials = out.filter((r) => r.partial === true).map((r) => r.content?.parts?.[0]?.text).join("");
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
      config: { tools: [{ functionDeclarations: [{ name: "f", description: "d", parametersJsonSchema: { type: "object" } }] }] },
    };
    await expect(collect(model.generateContentAsync(request as never))).rejects.toMatchObject({ code: "CONFIGURATION_ERROR" });
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
    expect((messages[1] as unknown as { tool_calls: unknown[] }).tool_calls).toEqual([{ id: "c1", name: "get_weather", args: { city: "Paris" }, type: "tool_call" }]);
    expect((messages[2] as unknown as { tool_call_id: string }).tool_call_id).toBe("c1");
  });
});
