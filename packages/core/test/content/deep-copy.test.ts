// Frozen snapshots (the in-memory store's events, the SQL stores' parsed events) hold one shared
// frozen empty object and array wherever their source had an empty one.
import { describe, expect, it } from "@jest/globals";
import { frozenCopy } from "../../src/content/deep-copy.js";
import { deepFreeze } from "../../src/internal.js";

const eventLike = () => ({
  id: "e1",
  content: { role: "user", parts: [{ text: "q" }] },
  actions: { stateDelta: {}, artifactDelta: {}, requestedAuthConfigs: {}, requestedToolConfirmations: {} },
  longRunningToolIds: [] as string[],
  customMetadata: { nested: { empty: {}, list: [] as unknown[] } },
});

describe("frozenCopy shares empty objects and arrays", () => {
  it("every empty plain object is one frozen instance, every empty array another; the JSON is unchanged", () => {
    const source = eventLike();
    const a = frozenCopy(source);
    const b = frozenCopy(eventLike());
    expect(JSON.stringify(a)).toBe(JSON.stringify(source));
    expect(a.actions.stateDelta).toBe(a.actions.artifactDelta);
    expect(a.actions.stateDelta).toBe(b.customMetadata.nested.empty);
    expect(a.longRunningToolIds).toBe(b.customMetadata.nested.list);
    expect(Object.isFrozen(a.actions.stateDelta) && Object.isFrozen(a.longRunningToolIds)).toBe(true);
    expect(Object.getPrototypeOf(a.actions.stateDelta)).toBe(Object.prototype);
    expect(Array.isArray(a.longRunningToolIds)).toBe(true);
    // The source keeps its own (mutable) objects.
    expect(source.actions.stateDelta).not.toBe(a.actions.stateDelta);
    expect(Object.isFrozen(source.actions.stateDelta)).toBe(false);
  });

  it("a shared empty cannot be written through (strict mode throws), so no snapshot can change another", () => {
    const a = frozenCopy(eventLike());
    expect(() => {
      (a.actions.stateDelta as Record<string, unknown>).k = 1;
    }).toThrow(TypeError);
    expect(() => (a.longRunningToolIds as string[]).push("x")).toThrow(TypeError);
    expect(JSON.stringify(frozenCopy(eventLike()).actions)).toBe(JSON.stringify(eventLike().actions));
  });

  it("objects with keys, own __proto__ keys and strings come through as before", () => {
    const source = { ...JSON.parse('{"__proto__":{}}'), id: `e-${"x".repeat(40)}`, n: { a: 1 } };
    const copy = frozenCopy(source);
    expect(Object.hasOwn(copy, "__proto__")).toBe(true);
    expect(copy.id).toBe(source.id);
    expect(copy.n).toEqual({ a: 1 });
    expect(copy.n).not.toBe(source.n);
  });
});

describe("deepFreeze shares the same empties", () => {
  it("freezes in place and replaces empty children (not the value itself) by the shared instances", () => {
    const parsed = JSON.parse(JSON.stringify(eventLike())) as ReturnType<typeof eventLike>;
    const root = parsed.actions;
    const frozen = deepFreeze(parsed);
    expect(frozen).toBe(parsed);
    expect(frozen.actions).toBe(root);
    expect(frozen.actions.stateDelta).toBe(frozenCopy(eventLike()).actions.stateDelta);
    expect(frozen.longRunningToolIds).toBe(frozenCopy(eventLike()).longRunningToolIds);
    expect(Object.isFrozen(frozen) && Object.isFrozen(frozen.content.parts[0])).toBe(true);
    expect(JSON.stringify(frozen)).toBe(JSON.stringify(eventLike()));
    const empty = {};
    expect(deepFreeze(empty)).toBe(empty);
  });

  it("an own __proto__ key holding an empty object stays an own key", () => {
    const parsed = JSON.parse('{"__proto__":{},"a":[]}') as Record<string, unknown>;
    deepFreeze(parsed);
    expect(Object.hasOwn(parsed, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(JSON.stringify(parsed)).toBe('{"__proto__":{},"a":[]}');
  });

  it("ends on cycles", () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    expect(deepFreeze(a)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
  });
});
