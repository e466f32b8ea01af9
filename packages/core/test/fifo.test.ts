import { describe, expect, it } from "@jest/globals";
import { SeededRandom } from "@agentkit/test-support/seeded-random";
import { Fifo } from "../src/concurrency/fifo.js";

describe("Fifo", () => {
  it("hands items out in arrival order, across its compactions, as an array's push and shift do", () => {
    for (const seed of [1, 2, 3]) {
      const rng = new SeededRandom(seed);
      const fifo = new Fifo<number>();
      const model: number[] = [];
      let next = 0;
      for (let step = 0; step < 50_000; step++) {
        // Bursts of pushes and of shifts, so the queue grows past the compaction threshold and drains.
        if (rng.chance(step % 6_000 < 3_000 ? 0.7 : 0.3)) {
          fifo.push(next);
          model.push(next++);
        } else {
          expect(fifo.shift()).toBe(model.shift());
        }
        expect(fifo.length).toBe(model.length);
      }
      while (model.length > 0) expect(fifo.shift()).toBe(model.shift());
      expect(fifo.shift()).toBeUndefined();
      expect(fifo.length).toBe(0);
    }
  });

  it("takes the first item that matches, wherever it is, and keeps the others in order", () => {
    const fifo = new Fifo<string>();
    for (const item of ["a1", "b1", "a2", "b2"]) fifo.push(item);
    expect(fifo.takeFirst((item) => item.startsWith("b"))).toBe("b1");
    expect(fifo.takeFirst((item) => item.startsWith("a"))).toBe("a1");
    expect(fifo.takeFirst((item) => item === "c")).toBeUndefined();
    expect(fifo.length).toBe(2);
    expect([fifo.shift(), fifo.shift(), fifo.shift()]).toEqual(["a2", "b2", undefined]);
  });

  it("holds at most twice what is queued while it drains (taken items are not kept)", () => {
    const fifo = new Fifo<number>();
    for (let i = 0; i < 100_000; i++) fifo.push(i);
    let sum = 0;
    for (let i = 0; i < 100_000; i++) {
      sum += fifo.shift()!;
      const held = (fifo as unknown as { items: unknown[] }).items.length;
      expect(held).toBeLessThanOrEqual(Math.max(2 * fifo.length, fifo.length + 1024));
    }
    expect(sum).toBe((100_000 * 99_999) / 2);
    expect((fifo as unknown as { items: unknown[] }).items).toHaveLength(0);
  });
});
