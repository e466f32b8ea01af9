import { describe, expect, it } from "@jest/globals";
import { DEFAULT_MODEL_PRICES, DEFAULT_PRICES_AS_OF, PriceTable, tokensOf } from "../../src/index.js";

describe("PriceTable", () => {
  it("finds shipped prices by name, provider prefix and snapshot suffix, never by a shorter name", () => {
    const table = new PriceTable();
    expect(table.get("gpt-4o-mini")).toEqual(DEFAULT_MODEL_PRICES["gpt-4o-mini"]);
    expect(table.get("gpt-4o-mini-2024-07-18")).toEqual(DEFAULT_MODEL_PRICES["gpt-4o-mini"]);
    expect(table.get("openai/gpt-4o")).toEqual(DEFAULT_MODEL_PRICES["gpt-4o"]);
    expect(table.get("claude-sonnet-4-5-20250929")).toEqual(DEFAULT_MODEL_PRICES["claude-sonnet-4-5"]);
    expect(table.get("claude-haiku-4-5-20251001")).toEqual(DEFAULT_MODEL_PRICES["claude-haiku-4-5"]);
    expect(table.get("models/gemini-2.5-flash")).toEqual(DEFAULT_MODEL_PRICES["gemini-2.5-flash"]);
    // Unknown variants stay unknown: no guessing from a prefix.
    expect(table.get("o3-mini")).toBeUndefined();
    expect(table.get("gpt-4o-audio-preview")).toBeUndefined();
    expect(table.get("ollama/llama3.2")).toBeUndefined();
    expect(DEFAULT_PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("takes the user's prices over the shipped ones, or only the user's", () => {
    const table = new PriceTable({
      prices: {
        "gpt-4o": { inputPerMillion: 1, outputPerMillion: 2 },
        "my-llm": { inputPerMillion: 0, outputPerMillion: 0 },
      },
    });
    expect(table.get("gpt-4o")).toEqual({ inputPerMillion: 1, outputPerMillion: 2 });
    expect(table.get("my-llm")).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
    const only = new PriceTable({
      includeDefaults: false,
      prices: { "my-llm": { inputPerMillion: 1, outputPerMillion: 1 } },
    });
    expect(only.get("gpt-4o")).toBeUndefined();
    expect(PriceTable.from(table)).toBe(table);
  });

  it("a price set after a lookup is found (and replaced) by the next lookup", () => {
    const table = new PriceTable();
    expect(table.get("my-llm-001")).toBeUndefined();
    expect(table.get("gpt-4o")).toEqual(DEFAULT_MODEL_PRICES["gpt-4o"]);
    table.set("my-llm", { inputPerMillion: 1, outputPerMillion: 2 });
    table.set("gpt-4o", { inputPerMillion: 3, outputPerMillion: 4 });
    expect(table.get("my-llm-001")).toEqual({ inputPerMillion: 1, outputPerMillion: 2 });
    expect(table.get("gpt-4o")).toEqual({ inputPerMillion: 3, outputPerMillion: 4 });
    // Many distinct names (stored events may carry any) are all still answered right.
    for (let i = 0; i < 3000; i++) expect(table.get(`unknown-${i}`)).toBeUndefined();
    expect(table.get("my-llm-001")).toEqual({ inputPerMillion: 1, outputPerMillion: 2 });
  });

  it("prices cached input and counts thoughts once, whichever way a provider reports them", () => {
    const table = new PriceTable({
      includeDefaults: false,
      prices: { m: { inputPerMillion: 1, outputPerMillion: 4, cachedInputPerMillion: 0.25 } },
    });
    // Gemini: thoughts beside the candidates, all inside the total.
    const gemini = tokensOf({
      promptTokenCount: 1000,
      cachedContentTokenCount: 400,
      candidatesTokenCount: 100,
      thoughtsTokenCount: 50,
      totalTokenCount: 1150,
    });
    expect(table.costOf("m", gemini)).toBeCloseTo((600 * 1 + 400 * 0.25 + 150 * 4) / 1e6, 12);
    // OpenAI: reasoning tokens inside completion_tokens (candidates), reported again as thoughts.
    const openai = tokensOf({
      promptTokenCount: 1000,
      candidatesTokenCount: 150,
      thoughtsTokenCount: 50,
      totalTokenCount: 1150,
    });
    expect(table.costOf("m", openai)).toBeCloseTo((1000 * 1 + 150 * 4) / 1e6, 12);
    // No cached price: cached tokens cost the input price.
    const plain = new PriceTable({
      includeDefaults: false,
      prices: { p: { inputPerMillion: 1, outputPerMillion: 1 } },
    });
    expect(plain.costOf("p", gemini)).toBeCloseTo((1000 + 150) / 1e6, 12);
    expect(plain.costOf("unknown", gemini)).toBeUndefined();
  });

  it("treats data-like model names as ordinary keys", () => {
    const table = new PriceTable({ includeDefaults: false });
    expect(table.get("__proto__")).toBeUndefined();
    expect(table.get("constructor")).toBeUndefined();
    table.set("__proto__", { inputPerMillion: 1, outputPerMillion: 1 });
    expect(table.get("__proto__")).toEqual({ inputPerMillion: 1, outputPerMillion: 1 });
  });
});
