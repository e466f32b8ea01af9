import {
  createEvent,
  emptyRollup,
  InMemorySessionService,
  PriceTable,
  USAGE_METADATA_KEY,
  UsageTracker,
  type LlmResponse,
  type UsageRollup,
} from "../../src/index.js";
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

/** Every object the value holds is frozen. */
function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

describe("the usage snapshot a final event carries", () => {
  const prices = new PriceTable({ prices: { priced: { inputPerMillion: 1, outputPerMillion: 2 } } });

  function trackerAfter(
    before: UsageRollup | undefined,
    models: string[],
  ): { tracker: UsageTracker; tick: () => void } {
    let clock = 5_000;
    const tracker = new UsageTracker({ prices, ...(before ? { sessionBefore: () => before } : {}), now: () => clock });
    for (const [i, model] of models.entries()) {
      const call = tracker.startModelCall(model);
      call.record(response(20 + i));
      call.end();
    }
    tracker.recordEvent({
      id: "e",
      invocationId: "i",
      author: "a",
      timestamp: 1,
      actions: { stateDelta: {}, artifactDelta: {}, requestedAuthConfigs: {}, requestedToolConfirmations: {} },
      content: { role: "user", parts: [{ functionResponse: { name: "t", response: {} } }] },
    } as never);
    return { tracker, tick: () => (clock += 11) };
  }

  it.each([
    ["one unpriced model", ["local"]],
    ["one priced model", ["priced"]],
    ["two models, priced and not", ["priced", "local"]],
  ])("is frozen all the way down, with the JSON of the unfrozen rollups: %s", (_name, models) => {
    const { tracker, tick } = trackerAfter(undefined, models);
    tick();
    const snapshot = tracker.snapshot();
    expect(deeplyFrozen(snapshot)).toBe(true);
    expect(JSON.stringify(snapshot.invocation)).toBe(JSON.stringify(tracker.invocationUsage()));
    expect(snapshot.invocation.toolCalls).toBe(1);
    expect(snapshot.invocation.durationMs).toBe(11);
  });

  it("of a session's first invocation holds one rollup for both scopes, equal to the session's full build", () => {
    const { tracker } = trackerAfter(prices.priceRollup(emptyRollup()), ["local", "priced"]);
    const snapshot = tracker.snapshot();
    expect(snapshot.session).toBe(snapshot.invocation);
    expect(JSON.stringify(snapshot.session)).toBe(JSON.stringify(tracker.sessionUsage(tracker.invocationUsage())));
  });

  it("of a later invocation holds its own session rollup, the earlier usage added", () => {
    const before = prices.priceRollup(emptyRollup());
    before.models.priced = { tokens: { ...before.tokens, prompt: 3, total: 3 }, modelCalls: 1 };
    before.tokens.prompt = 3;
    before.tokens.total = 3;
    before.modelCalls = 1;
    const { tracker } = trackerAfter(prices.priceRollup(before), ["priced"]);
    const snapshot = tracker.snapshot();
    expect(snapshot.session).not.toBe(snapshot.invocation);
    expect(snapshot.session.modelCalls).toBe(2);
    expect(snapshot.session.tokens.prompt).toBe(23);
    expect(deeplyFrozen(snapshot)).toBe(true);
  });

  it("is a plain object at the top, keys in order, marked for the store but with nothing a reader sees", () => {
    const { tracker } = trackerAfter(undefined, ["local"]);
    const snapshot = tracker.snapshot();
    expect(Object.getPrototypeOf(snapshot)).toBe(Object.prototype);
    expect(snapshot.constructor).toBe(Object);
    expect(Object.getPrototypeOf(snapshot.invocation)).toBe(Object.prototype);
    expect(snapshot.invocation.constructor).toBe(Object);
    expect(Object.keys(snapshot)).toEqual(["invocation", "session"]);
    expect(Object.getOwnPropertySymbols(snapshot)).toHaveLength(1);
    expect(Object.getOwnPropertySymbols({ ...snapshot })).toHaveLength(0);
    expect(JSON.stringify(snapshot)).toBe(
      JSON.stringify({ invocation: snapshot.invocation, session: snapshot.session }),
    );
  });

  it("shares a one-model list of unpriced models between snapshots, and keeps lists of several apart", () => {
    const first = trackerAfter(undefined, ["shared-local"]).tracker.snapshot();
    const second = trackerAfter(undefined, ["shared-local"]).tracker.snapshot();
    expect(first.invocation.unpricedModels).toEqual(["shared-local"]);
    expect(second.invocation.unpricedModels).toBe(first.invocation.unpricedModels);
    expect(Object.isFrozen(first.invocation.unpricedModels)).toBe(true);
    const two = trackerAfter(undefined, ["one-local", "two-local"]).tracker.snapshot();
    const twoAgain = trackerAfter(undefined, ["one-local", "two-local"]).tracker.snapshot();
    expect(twoAgain.invocation.unpricedModels).toEqual(two.invocation.unpricedModels);
    expect(twoAgain.invocation.unpricedModels).not.toBe(two.invocation.unpricedModels);
  });

  it("does not share the list of a very long model name", () => {
    const name = `long-${"x".repeat(300)}`;
    const [a, b] = [0, 1].map(() => trackerAfter(undefined, [name]).tracker.snapshot());
    expect(a!.invocation.unpricedModels).toEqual([name]);
    expect(b!.invocation.unpricedModels).not.toBe(a!.invocation.unpricedModels);
  });

  it("shares one-model lists for a bounded number of model names only", () => {
    const lists = (name: string) => [0, 1].map(() => trackerAfter(undefined, [name]).tracker.snapshot());
    for (let i = 0; i < 100; i++) lists(`bounded-${i}`);
    const [a, b] = lists("bounded-last");
    expect(a!.invocation.unpricedModels).toEqual(["bounded-last"]);
    expect(b!.invocation.unpricedModels).not.toBe(a!.invocation.unpricedModels);
  });

  it("is kept as it is by the in-memory store, and read back with its JSON", async () => {
    const service = new InMemorySessionService();
    const session = await service.createSession({ appName: "a", userId: "u" });
    const { tracker } = trackerAfter(undefined, ["local"]);
    const usage = tracker.snapshot();
    const event = createEvent({
      invocationId: "i1",
      author: "agent",
      content: { role: "model", parts: [{ text: "done" }] },
      customMetadata: { [USAGE_METADATA_KEY]: usage },
    });
    await service.appendEvent({ session, event });
    const stored = await service.getSession({ appName: "a", userId: "u", sessionId: session.id });
    const storedUsage = stored!.events[0]!.customMetadata![USAGE_METADATA_KEY];
    expect(storedUsage).toBe(usage);
    expect(JSON.parse(JSON.stringify(stored!.events[0]!.customMetadata))).toEqual({
      [USAGE_METADATA_KEY]: JSON.parse(JSON.stringify(usage)),
    });
  });
});
