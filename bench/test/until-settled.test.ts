// The benchmarks' warm-up policy: run windows until two in a row cost about the same.
import { describe, expect, it } from "@jest/globals";
import { untilSettled } from "../src/until-settled.js";

/** A window function that returns the given costs in order and records the seconds it was asked for. */
function windows(costs: number[]) {
  const asked: number[] = [];
  const window = async (seconds: number) => {
    asked.push(seconds);
    const cost = costs[asked.length - 1];
    if (cost === undefined) throw new Error("asked for more windows than the test gave");
    return cost;
  };
  return { window, asked };
}

describe("untilSettled", () => {
  it("stops at the first window within 10% of the one before it", async () => {
    const { window, asked } = windows([500, 300, 210, 200, 199]);
    expect(await untilSettled(window, { windowSeconds: 0.5, minSeconds: 1, maxSeconds: 15 })).toBe(2);
    expect(asked).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it("runs at least minSeconds even when the first windows agree", async () => {
    const { window, asked } = windows([100, 100, 100, 100]);
    expect(await untilSettled(window, { windowSeconds: 1, minSeconds: 3, maxSeconds: 10 })).toBe(3);
    expect(asked).toHaveLength(3);
  });

  it("gives up after maxSeconds when the cost never settles", async () => {
    const { window, asked } = windows([100, 200, 100, 200, 100]);
    expect(await untilSettled(window, { windowSeconds: 1, minSeconds: 1, maxSeconds: 4 })).toBe(4);
    expect(asked).toHaveLength(4);
  });

  it("takes another tolerance when given one", async () => {
    const { window } = windows([100, 80, 75]);
    expect(await untilSettled(window, { windowSeconds: 1, minSeconds: 0, maxSeconds: 10, tolerance: 0.25 })).toBe(2);
  });
});
