// The benchmarks' warm-up policy: run windows until the last three cost about the same.
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
  it("stops at the first three windows within 10% of the cheapest of them", async () => {
    const { window, asked } = windows([500, 300, 210, 200, 199, 198]);
    expect(await untilSettled(window, { windowSeconds: 0.5, minSeconds: 1, maxSeconds: 15 })).toBe(2.5);
    expect(asked).toEqual([0.5, 0.5, 0.5, 0.5, 0.5]);
  });

  it("goes on while the cost keeps falling, even by less than 10% a window", async () => {
    // Each window is within 10% of the one before it; three in a row are not until 216, 200, 200.
    const { window, asked } = windows([300, 280, 262, 245, 230, 216, 200, 200, 199]);
    expect(await untilSettled(window, { windowSeconds: 1, minSeconds: 1, maxSeconds: 20 })).toBe(8);
    expect(asked).toHaveLength(8);
  });

  it("compares as many windows as asked", async () => {
    const { window } = windows([300, 280, 262, 245]);
    expect(await untilSettled(window, { windowSeconds: 1, minSeconds: 0, maxSeconds: 10, span: 2 })).toBe(2);
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
    const { window } = windows([100, 80, 75, 70, 70]); // 80 / 70 is within 25%, not 10%
    expect(await untilSettled(window, { windowSeconds: 1, minSeconds: 0, maxSeconds: 10, tolerance: 0.25 })).toBe(4);
  });
});
