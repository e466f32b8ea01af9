import { describe, expect, it } from "@jest/globals";
import { createEvent } from "../src/index.js";
import { deepCopy, deepFreeze } from "../src/internal.js";
import { frozenCopy } from "../src/content/deep-copy.js";

describe("createEvent", () => {
  it("keeps the caller's key order, fills the fixed fields in place or at the end, drops undefined values", () => {
    const event = createEvent({
      branch: undefined,
      author: "a",
      content: { role: "model", parts: [{ text: "hi" }] },
      id: undefined,
      partial: undefined,
      timestamp: 5,
    });
    expect(Object.keys(event)).toEqual(["author", "content", "id", "timestamp", "invocationId", "actions"]);
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(event).toEqual({
      author: "a",
      content: { role: "model", parts: [{ text: "hi" }] },
      id: event.id,
      timestamp: 5,
      invocationId: "",
      actions: createEvent({ author: "x" }).actions,
    });
    expect(Object.keys(createEvent({ author: "u" }))).toEqual(["author", "id", "invocationId", "timestamp", "actions"]);
    // Without undefined members (the spread path): the same order rule, the given fixed fields in place.
    const given = createEvent({ invocationId: "e-1", author: "a", content: { parts: [] }, id: "x", actions: {} });
    expect(Object.keys(given)).toEqual(["invocationId", "author", "content", "id", "actions", "timestamp"]);
    expect(given.actions).toEqual(createEvent({ author: "x" }).actions);
    expect(Object.keys(createEvent({ timestamp: 2, author: "b" }))).toEqual([
      "timestamp",
      "author",
      "id",
      "invocationId",
      "actions",
    ]);
    // Same JSON as the spread-then-delete construction it replaces.
    const init = { invocationId: "e-1", author: "a", branch: undefined, turnComplete: true, id: "x", timestamp: 1 };
    const spread: Record<string, unknown> = { ...init, actions: createEvent({ author: "a" }).actions };
    delete spread.branch;
    expect(JSON.stringify(createEvent(init))).toBe(JSON.stringify(spread));
  });

  it("a data key named __proto__ stays an own key and does not re-parent the event", () => {
    const init = JSON.parse('{"author":"a","__proto__":{"polluted":true}}');
    const event = createEvent(init);
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect(Object.hasOwn(event, "__proto__")).toBe(true);
    expect((event as unknown as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe("frozenCopy", () => {
  it("equals deepFreeze(deepCopy(value)): a deep copy, every object frozen, the source untouched", () => {
    const source = {
      a: [1, { b: "c" }, [2, 3]],
      d: { e: null, f: undefined, when: new Date(0) },
      ...JSON.parse('{"__proto__":{"x":1}}'),
    };
    const copy = frozenCopy(source);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(deepFreeze(deepCopy(source))));
    expect(copy).not.toBe(source);
    expect(copy.a[1]).not.toBe(source.a[1]);
    expect(
      Object.isFrozen(copy) && Object.isFrozen(copy.a) && Object.isFrozen(copy.a[1]) && Object.isFrozen(copy.d.when),
    ).toBe(true);
    expect(Object.isFrozen(source) || Object.isFrozen(source.a)).toBe(false);
    expect(Object.hasOwn(copy, "__proto__")).toBe(true);
    expect(copy.d.when).toEqual(new Date(0));
  });
});

describe("deepCopy", () => {
  it("copies literals, null-prototype records and arrays key by key, and anything else with structuredClone", () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: { v: 1 } });
    class Point {
      constructor(readonly x: number) {}
    }
    const source = {
      bare,
      list: [{ n: 1 }, [2]],
      when: new Date(5),
      point: new Point(3),
      bytes: new Uint8Array([1, 2]),
    };
    const copy = deepCopy(source);
    expect(copy).toEqual({
      bare: { k: { v: 1 } },
      list: [{ n: 1 }, [2]],
      when: new Date(5),
      point: { x: 3 },
      bytes: new Uint8Array([1, 2]),
    });
    expect(copy.bare).not.toBe(bare);
    expect(copy.bare.k).not.toBe(bare.k);
    expect(copy.list[0]).not.toBe(source.list[0]);
    expect(copy.when).not.toBe(source.when);
    // structuredClone answers with the host realm's classes (jest runs tests in a vm context).
    expect(Object.prototype.toString.call(copy.when)).toBe("[object Date]");
    expect(Object.prototype.toString.call(copy.bytes)).toBe("[object Uint8Array]");
    expect(copy.point).not.toBeInstanceOf(Point);
  });
});
