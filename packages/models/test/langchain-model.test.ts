import { describe, expect, it } from "@jest/globals";
import { FakeListChatModel } from "@langchain/core/utils/testing";
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
