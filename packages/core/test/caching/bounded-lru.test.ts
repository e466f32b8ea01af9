import { describe, expect, it } from "@jest/globals";
import { SeededRandom } from "@agentkit/test-support/seeded-random";
import { BoundedLru } from "../../src/internal.js";

/** The policy written the slow, obvious way: an array from least to most recently used. */
class ReferenceLru {
  order: { key: string; value: number; weight: number }[] = [];
  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight: number,
  ) {}
  get(key: string, touch: boolean): number | undefined {
    const i = this.order.findIndex((e) => e.key === key);
    if (i < 0) return undefined;
    const [entry] = this.order.splice(i, 1);
    if (touch) this.order.push(entry!);
    else this.order.splice(i, 0, entry!);
    return entry!.value;
  }
  set(key: string, value: number, weight: number): void {
    this.order = this.order.filter((e) => e.key !== key);
    this.order.push({ key, value, weight });
    while (this.order.length > 0 && (this.order.length > this.maxEntries || this.weight() > this.maxWeight)) {
      this.order.shift();
    }
  }
  delete(key: string): void {
    this.order = this.order.filter((e) => e.key !== key);
  }
  weight(): number {
    return this.order.reduce((sum, e) => sum + e.weight, 0);
  }
}

describe("BoundedLru", () => {
  it("evicts the least recently used entry past maxEntries; get refreshes, peek does not", () => {
    const lru = new BoundedLru<string>({ maxEntries: 2 });
    lru.set("a", "A");
    lru.set("b", "B");
    expect(lru.peek("a")).toBe("A");
    lru.set("c", "C"); // a was only peeked: it is still the oldest
    expect(lru.peek("a")).toBeUndefined();
    expect(lru.get("b")).toBe("B");
    lru.set("d", "D"); // b was used after c: c goes
    expect([lru.peek("b"), lru.peek("c"), lru.peek("d")]).toEqual(["B", undefined, "D"]);
    expect(lru.size).toBe(2);
  });

  it("keeps the order when the newest entry is used or stored again, and after it is deleted", () => {
    const lru = new BoundedLru<string>({ maxEntries: 2 });
    lru.set("a", "A");
    lru.set("b", "B");
    expect([lru.get("b"), lru.get("b")]).toEqual(["B", "B"]);
    lru.set("b", "B2"); // already the newest: stored in place
    lru.set("c", "C"); // a is the oldest
    expect([lru.peek("a"), lru.peek("b"), lru.peek("c")]).toEqual([undefined, "B2", "C"]);
    expect(lru.delete("c")).toBe(true); // the newest gone: b is the newest again
    lru.set("d", "D");
    expect(lru.get("b")).toBe("B2"); // b moves past d
    lru.set("e", "E"); // d is the oldest
    expect([lru.peek("b"), lru.peek("d"), lru.peek("e")]).toEqual(["B2", undefined, "E"]);
  });

  it("bounds the total weight, re-weighs an entry stored again, and drops an entry heavier than the bound", () => {
    const lru = new BoundedLru<string>({ maxEntries: 10, maxWeight: 10 });
    lru.set("a", "A", 4);
    lru.set("b", "B", 4);
    expect(lru.weight).toBe(8);
    lru.set("a", "A2", 6); // a grows to 6 and is now the newest: b (4) + a (6) = 10 fits
    expect(lru.weight).toBe(10);
    lru.set("c", "C", 1); // 11: the oldest (b) goes
    expect([lru.peek("a"), lru.peek("b"), lru.peek("c")]).toEqual(["A2", undefined, "C"]);
    expect(lru.weight).toBe(7);
    lru.set("huge", "H", 11);
    expect(lru.size).toBe(0);
    expect(lru.weight).toBe(0);
  });

  it("delete and clear give back the weight", () => {
    const lru = new BoundedLru<number>({ maxEntries: 5, maxWeight: 100 });
    lru.set("a", 1, 30);
    lru.set("b", 2, 20);
    expect(lru.delete("a")).toBe(true);
    expect(lru.delete("a")).toBe(false);
    expect(lru.weight).toBe(20);
    lru.clear();
    expect([lru.size, lru.weight, lru.peek("b")]).toEqual([0, 0, undefined]);
  });

  it.each([1, 2, 3, 4, 5])("matches the obvious array model over random operations (seed %i)", (seed) => {
    const rng = new SeededRandom(seed);
    const maxEntries = rng.between(1, 6);
    const maxWeight = rng.between(3, 30);
    const lru = new BoundedLru<number>({ maxEntries, maxWeight });
    const model = new ReferenceLru(maxEntries, maxWeight);
    for (let step = 0; step < 2_000; step++) {
      const key = `k${rng.int(9)}`;
      const op = rng.int(4);
      if (op === 0) {
        const weight = rng.between(0, 12);
        lru.set(key, step, weight);
        model.set(key, step, weight);
      } else if (op === 1) expect(lru.get(key)).toBe(model.get(key, true));
      else if (op === 2) expect(lru.peek(key)).toBe(model.get(key, false));
      else {
        lru.delete(key);
        model.delete(key);
      }
      expect(lru.size).toBe(model.order.length);
      expect(lru.weight).toBe(model.weight());
    }
  });
});
