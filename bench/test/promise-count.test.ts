import { describe, expect, it } from "@jest/globals";
import { countPromises, startPromiseCount } from "../src/promise-count.js";

describe("countPromises", () => {
  it("counts the promises made while the work runs, and only then", async () => {
    const made = (n: number) => async () => {
      for (let i = 0; i < n; i++) new Promise<void>((resolve) => resolve());
    };
    await countPromises(made(0)); // the first count also sees the hook's own one-time set-up
    const base = await countPromises(made(0));
    expect(await countPromises(made(10))).toBe(base + 10);
    expect(await countPromises(made(25))).toBe(base + 25);
    // Off between counts: promises made outside a count are not added to the next one.
    for (let i = 0; i < 5; i++) new Promise<void>((resolve) => resolve());
    expect(await countPromises(made(10))).toBe(base + 10);
  });

  it("stops counting when the stop function is called", () => {
    const stop = startPromiseCount();
    for (let i = 0; i < 3; i++) void Promise.resolve(i);
    const counted = stop();
    expect(counted).toBe(3);
    for (let i = 0; i < 3; i++) void Promise.resolve(i);
    expect(stop()).toBe(3);
  });
});
