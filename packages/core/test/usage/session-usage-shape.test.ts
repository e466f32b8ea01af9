import { emptyRollup, PriceTable, UsageTracker, type LlmResponse, type UsageRollup } from "../../src/index.js";
import { addRollup, cloneRollup } from "../../src/usage/usage-rollup.js";

/** The session rollup as the tracker made it before: the earlier total cloned whole, the invocation added, priced. */
function reference(prices: PriceTable, before: UsageRollup, invocation: UsageRollup): UsageRollup {
  const rollup = cloneRollup(before);
  addRollup(rollup, invocation);
  return prices.priceRollup(rollup);
}

function response(tokens: number): LlmResponse {
  return {
    content: { role: "model", parts: [{ text: "x" }] },
    usageMetadata: { promptTokenCount: tokens, candidatesTokenCount: 1, totalTokenCount: tokens + 1 },
  };
}

describe("the session rollup of a usage snapshot", () => {
  const prices = new PriceTable({ prices: { priced: { inputPerMillion: 1, outputPerMillion: 2 } } });
  const pricedBefore = (() => {
    const r = emptyRollup();
    r.models.priced = { tokens: { ...r.tokens, prompt: 5, total: 5 }, modelCalls: 1 };
    r.tokens.prompt = 5;
    r.tokens.total = 5;
    r.modelCalls = 1;
    return prices.priceRollup(r);
  })();
  const unpricedBefore = (() => {
    const r = emptyRollup();
    r.models.local = { tokens: { ...r.tokens, prompt: 2, total: 2 }, modelCalls: 1 };
    return prices.priceRollup(r);
  })();
  const cases: [string, UsageRollup, string[]][] = [
    ["an empty earlier total (a new session), an unpriced model", prices.priceRollup(emptyRollup()), ["local"]],
    ["an empty earlier total, a priced model", prices.priceRollup(emptyRollup()), ["priced"]],
    ["a priced earlier total, then an unpriced model", pricedBefore, ["local"]],
    ["a priced earlier total, the same model again", pricedBefore, ["priced"]],
    ["an unpriced earlier total, then a priced model", unpricedBefore, ["priced"]],
    ["both kinds in one invocation", pricedBefore, ["priced", "local"]],
  ];

  it.each(cases)("has the keys, in order, and figures of the whole-clone build: %s", (_name, before, models) => {
    const beforeJson = JSON.stringify(before);
    let clock = 1_000;
    const tracker = new UsageTracker({ prices, sessionBefore: () => before, now: () => clock });
    for (const [i, model] of models.entries()) {
      const call = tracker.startModelCall(model);
      call.record(response(10 + i));
      call.end();
    }
    clock += 7;
    const snapshot = tracker.snapshot();
    expect(JSON.stringify(snapshot.session)).toBe(JSON.stringify(reference(prices, before, snapshot.invocation)));
    // The earlier total is not changed by the snapshot.
    expect(JSON.stringify(before)).toBe(beforeJson);
  });
});
