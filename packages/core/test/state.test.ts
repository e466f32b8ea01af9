import { describe, expect, it } from "@jest/globals";
import { APP_PREFIX, State, StatePrefix, TEMP_PREFIX, USER_PREFIX } from "../src/index.js";
import { mergeState, scopeOfKey, splitStateDelta, withoutTempKeys } from "../src/internal.js";

describe("state prefixes", () => {
  it("names the three prefixes", () => {
    expect(StatePrefix).toEqual({ APP: "app:", USER: "user:", TEMP: "temp:" });
    expect([APP_PREFIX, USER_PREFIX, TEMP_PREFIX]).toEqual(["app:", "user:", "temp:"]);
  });

  it("maps keys to their scope", () => {
    expect(scopeOfKey("app:theme")).toBe("app");
    expect(scopeOfKey("user:name")).toBe("user");
    expect(scopeOfKey("temp:scratch")).toBe("temp");
    expect(scopeOfKey("topic")).toBe("session");
    // Only a leading prefix counts.
    expect(scopeOfKey("my_app:x")).toBe("session");
  });

  it("withoutTempKeys drops temp: keys only", () => {
    expect(withoutTempKeys({ "temp:a": 1, "app:b": 2, "user:c": 3, d: 4 })).toEqual({ "app:b": 2, "user:c": 3, d: 4 });
  });

  it("splitStateDelta splits by scope, strips app/user prefixes and drops temp keys", () => {
    expect(splitStateDelta({ "app:theme": "dark", "user:name": "Ada", "temp:x": 1, topic: "ai", count: 0 })).toEqual({
      app: { theme: "dark" },
      user: { name: "Ada" },
      session: { topic: "ai", count: 0 },
    });
    expect(splitStateDelta({})).toEqual({ app: {}, user: {}, session: {} });
  });

  it("mergeState re-prefixes app and user state over the session state", () => {
    expect(mergeState({ theme: "dark" }, { name: "Ada" }, { topic: "ai" })).toEqual({
      topic: "ai",
      "app:theme": "dark",
      "user:name": "Ada",
    });
  });

  it("split then merge round-trips every persisted key", () => {
    const delta = { "app:a": 1, "user:b": { deep: true }, c: [1, 2], "temp:d": 4 };
    const { app, user, session } = splitStateDelta(delta);
    expect(mergeState(app, user, session)).toEqual(withoutTempKeys(delta));
  });
});

describe("State", () => {
  it("records writes as a delta and reads them back", () => {
    const value: Record<string, unknown> = { a: 1 };
    const delta: Record<string, unknown> = {};
    const state = new State(value, delta);
    expect(state.hasDelta()).toBe(false);
    state.set("b", 2);
    state.set("app:c", 3);
    expect(delta).toEqual({ b: 2, "app:c": 3 });
    expect(state.get("b")).toBe(2);
    expect(state.getDelta()).toEqual({ b: 2, "app:c": 3 });
    expect(state.hasDelta()).toBe(true);
    // Writes also land in the underlying value so later readers see them.
    expect(value).toEqual({ a: 1, b: 2, "app:c": 3 });
  });

  it("get returns the default only for missing keys", () => {
    const state = new State({ zero: 0, empty: "", nothing: null });
    expect(state.get("missing")).toBeUndefined();
    expect(state.get("missing", "fallback")).toBe("fallback");
    expect(state.get("zero", 5)).toBe(0);
    expect(state.get("empty", "x")).toBe("");
    expect(state.get("nothing", "x")).toBeNull();
  });

  it("has sees stored keys and pending writes", () => {
    const state = new State({ a: undefined });
    expect(state.has("a")).toBe(true);
    expect(state.has("b")).toBe(false);
    state.set("b", false);
    expect(state.has("b")).toBe(true);
  });

  it("prefers the pending delta over the stored value", () => {
    const state = new State({ k: "old" }, { k: "new" });
    expect(state.get("k")).toBe("new");
    expect(state.toRecord()).toEqual({ k: "new" });
  });

  it("update applies several writes", () => {
    const state = new State();
    state.update({ x: 1, "user:y": 2 });
    expect(state.getDelta()).toEqual({ x: 1, "user:y": 2 });
  });

  it("toRecord and getDelta return copies", () => {
    const state = new State({ a: 1 });
    state.set("b", 2);
    const record = state.toRecord();
    expect(record).toEqual({ a: 1, b: 2 });
    record.c = 3;
    state.getDelta().d = 4;
    expect(state.has("c")).toBe(false);
    expect(state.getDelta()).toEqual({ b: 2 });
  });
});
