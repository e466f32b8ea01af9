// Frozen snapshots (the in-memory store's events, the SQL stores' parsed events) share what they
// can: one frozen empty object and array, one record per key list of nothing but empties (an
// unchanged event's actions), and equal small leaves of primitives within one snapshot.
import { inspect } from "node:util";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "@jest/globals";
import { frozenCopy } from "../../src/content/deep-copy.js";
import { markDeepFrozen } from "../../src/content/snapshot-sharing.js";
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

  it("copies own enumerable keys in their order, never inherited, hidden or symbol ones", () => {
    const base = Object.create(null) as Record<string, unknown>;
    base.inherited = 1;
    const source = Object.create(base) as Record<string | symbol, unknown>;
    source.b = 1;
    source[2] = "two";
    source.a = { z: 1, y: 2 };
    source[Symbol("s")] = 3;
    Object.defineProperty(source, "hidden", { value: 4, enumerable: false });
    const copy = frozenCopy(source);
    expect(Reflect.ownKeys(copy)).toEqual(["2", "b", "a"]);
    expect(Object.keys(copy.a as object)).toEqual(["z", "y"]);
    expect(Object.isFrozen(copy)).toBe(true);
  });
});

describe("records of empties and equal leaves", () => {
  const rollup = (prompt: number) => ({
    tokens: { prompt, candidates: 1, total: prompt + 1 },
    models: { m: { tokens: { prompt, candidates: 1, total: prompt + 1 }, calls: 1 } },
    unpriced: ["m", "n", "o"],
    session: { unpriced: ["m", "n", "o"], tokens: { prompt: prompt * 2, candidates: 2, total: prompt * 2 + 2 } },
    // Leaves of one or two entries are never shared (comparing them costs more than they save).
    small: { a: [1], b: [1], c: { q: "x" }, d: { q: "x" } },
  });

  it("an unchanged event's actions is one shared record; one with data is its own", () => {
    const a = frozenCopy(eventLike());
    const b = frozenCopy(eventLike());
    expect(a.actions).toBe(b.actions);
    const changed = frozenCopy({ ...eventLike(), actions: { ...eventLike().actions, stateDelta: { k: 1 } } });
    expect(changed.actions).not.toBe(a.actions);
    expect(changed.actions.artifactDelta).toBe(a.actions.artifactDelta);
    expect(JSON.stringify(changed.actions)).toBe(
      '{"stateDelta":{"k":1},"artifactDelta":{},"requestedAuthConfigs":{},"requestedToolConfirmations":{}}',
    );
  });

  it("a record of empties is shared only with one of the same keys, in the same order, and the same kinds", () => {
    const shared = frozenCopy({ a: {}, b: [] as unknown[] });
    expect(frozenCopy({ a: {}, b: [] as unknown[] })).toBe(shared);
    expect(frozenCopy({ a: Object.create(null) as object, b: Object.freeze([]) })).toBe(shared);
    expect(frozenCopy({ b: [] as unknown[], a: {} })).not.toBe(shared);
    expect(frozenCopy({ a: [] as unknown[], b: {} })).not.toBe(shared);
    expect(frozenCopy({ a: {}, b: [1] })).not.toBe(shared);
    // What a copy empties is what counts: own enumerable keys only, as the copy reads them.
    const inherited = Object.create(Object.create(null, { x: { value: 1, enumerable: true } })) as object;
    const hidden = Object.defineProperty({}, "x", { value: 1, enumerable: false });
    expect(frozenCopy({ a: inherited, b: [] as unknown[] })).toBe(shared);
    expect(frozenCopy({ a: hidden, b: [] as unknown[] })).toBe(shared);
    expect(frozenCopy({ a: { x: undefined }, b: [] as unknown[] })).not.toBe(shared);
    const marked = frozenCopy({ a: markDeepFrozen({}), b: [] as unknown[] });
    expect(marked).not.toBe(shared);
    expect(frozenCopy({ a: new Date(0), b: [] as unknown[] })).not.toBe(shared);
    const proto = JSON.parse('{"__proto__":{},"b":[]}') as Record<string, unknown>;
    const protoCopy = frozenCopy(proto);
    expect(Object.getPrototypeOf(protoCopy)).toBe(Object.prototype);
    expect(Object.keys(protoCopy)).toEqual(["__proto__", "b"]);
    expect(frozenCopy(JSON.parse('{"__proto__":{},"b":[]}'))).toBe(protoCopy);
    expect(protoCopy).not.toBe(shared);
  });

  it("equal leaves within one value are one object; equal leaves of two values are not shared", () => {
    const a = frozenCopy(rollup(10));
    expect(a.tokens).toBe(a.models.m.tokens);
    expect(a.unpriced).toBe(a.session.unpriced);
    expect(a.session.tokens).not.toBe(a.tokens);
    expect(a.small.a).not.toBe(a.small.b);
    expect(a.small.c).not.toBe(a.small.d);
    expect(JSON.stringify(a)).toBe(JSON.stringify(rollup(10)));
    const b = frozenCopy(rollup(10));
    expect(b.tokens).not.toBe(a.tokens);
    const parsed = deepFreeze(JSON.parse(JSON.stringify(rollup(10))) as ReturnType<typeof rollup>);
    expect(parsed.tokens).toBe(parsed.models.m.tokens);
    expect(parsed.tokens).not.toBe(a.tokens);
  });

  it("leaves that differ in type, -0, undefined or key order stay apart", () => {
    // Three entries each (smaller leaves are never shared): they differ only in `x`, or in key order.
    const v = frozenCopy({
      a: { x: 1, p: 0, q: 0 },
      b: { x: "1", p: 0, q: 0 },
      c: { x: -0, p: 0, q: 0 },
      d: { x: 0, p: 0, q: 0 },
      e: { x: undefined, p: 0, q: 0 },
      f: {},
      g: { x: 1, y: 2, q: 0 },
      h: { y: 2, x: 1, q: 0 },
      i: [1, "1", 0],
      j: ["1", 1, 0],
    });
    const all = [v.a, v.b, v.c, v.d, v.e, v.f, v.g, v.h, v.i, v.j];
    expect(new Set(all).size).toBe(all.length);
    expect(Object.is(v.c.x, -0)).toBe(true);
    expect(Object.keys(v.e)).toEqual(["x", "p", "q"]);
    expect(Object.keys(v.h)).toEqual(["y", "x", "q"]);
  });
});

describe("frozenCopy's records are plain objects", () => {
  it("with Object.prototype, Object as constructor, their keys in order, at every size", () => {
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    const source = { one: { a: "x" }, seven: { g: 1, f: 2, e: 3, d: 4, c: 5, b: 6, a: 7 }, wide };
    const copy = frozenCopy(source);
    for (const record of [copy, copy.one, copy.seven, copy.wide]) {
      expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
      expect(record.constructor).toBe(Object);
      expect(Object.isFrozen(record)).toBe(true);
    }
    expect(Object.keys(copy.seven)).toEqual(["g", "f", "e", "d", "c", "b", "a"]);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(source));
    expect(structuredClone(copy)).toStrictEqual(source);
    expect(inspect(copy.one)).toBe("{ a: 'x' }");
  });
});

describe("deepFreeze shares the same empties", () => {
  it("freezes in place and replaces empty children (not the value itself) by the shared instances", () => {
    const parsed = JSON.parse(JSON.stringify(eventLike())) as ReturnType<typeof eventLike>;
    const content = parsed.content;
    const frozen = deepFreeze(parsed);
    expect(frozen).toBe(parsed);
    expect(frozen.content).toBe(content);
    expect(frozen.actions).toBe(frozenCopy(eventLike()).actions);
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

describe("values agentkit built deep-frozen (markDeepFrozen)", () => {
  const built = () => markDeepFrozen({ totals: Object.freeze({ a: 1, b: 2, c: 3 }), names: Object.freeze(["x"]) });

  it("are kept by frozenCopy as they are, wherever they sit in the value", () => {
    const usage = built();
    const copy = frozenCopy({ id: "e1", customMetadata: { usage } });
    expect(copy.customMetadata.usage).toBe(usage);
    expect(Object.isFrozen(copy.customMetadata)).toBe(true);
  });

  it("carry no key that JSON, Object.keys or a spread would show, and a spread copy is not marked", () => {
    const usage = built();
    expect(JSON.stringify(usage)).toBe('{"totals":{"a":1,"b":2,"c":3},"names":["x"]}');
    expect(Object.keys(usage)).toEqual(["totals", "names"]);
    expect(Object.getOwnPropertySymbols({ ...usage })).toEqual([]);
    // A frozen look-alike (the same children, frozen by a caller) is copied like any other value.
    const lookAlike = Object.freeze({ ...usage });
    expect(frozenCopy({ usage: lookAlike }).usage).not.toBe(lookAlike);
  });

  it("are frozen at the top: a marked value cannot be written through", () => {
    const usage = built() as unknown as Record<string, unknown>;
    expect(() => {
      usage.totals = {};
    }).toThrow(TypeError);
  });
});

describe("frozenCopy keeps strings flat", () => {
  // V8 keeps a string made by concatenation as a tree of its pieces. A snapshot lives as long as
  // its session, so the copy flattens each string (a V8 behaviour the copy relies on: this checks
  // it still holds on the Node that runs the tests).
  const RECORDS = 5_000;
  const PIECES = 40;
  const concatenated = (i: number) => {
    let text = `r${i}`;
    for (let k = 0; k < PIECES; k++) text = `${text}-${k}`;
    return text;
  };
  setFlagsFromString("--expose-gc");
  // A context made after the flag is set has `gc`.
  const collect = runInNewContext("gc") as () => void;
  const heapUsed = () => {
    collect();
    collect();
    return getHeapStatistics().used_heap_size;
  };
  /** Heap bytes per record that `keep` holds on to once the source records are gone. */
  const keptPerRecord = (keep: (record: { text: string }) => unknown) => {
    const before = heapUsed();
    let sources: { text: string }[] | undefined = Array.from({ length: RECORDS }, (_, i) => ({
      text: concatenated(i),
    }));
    const kept = sources.map(keep);
    sources = undefined;
    const bytes = (heapUsed() - before) / RECORDS;
    expect(kept).toHaveLength(RECORDS);
    return bytes;
  };

  it("a concatenated text is kept as one flat string, not as the tree of its pieces", () => {
    // The control: a plain copy of the record holds the same string, still a tree (a node per piece).
    const tree = keptPerRecord((record) => ({ text: record.text }));
    const copied = keptPerRecord((record) => frozenCopy(record));
    // A flat string of these ~150 characters is about 170 bytes; the tree is over 20 bytes a piece.
    expect(tree).toBeGreaterThan(PIECES * 20);
    expect(copied).toBeLessThan(tree / 3);
  });
});
