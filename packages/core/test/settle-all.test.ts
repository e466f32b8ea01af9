import { describe, expect, it } from "@jest/globals";
import { settleAll, settleInOrder, throwFailures } from "../src/internal.js";

describe("settleAll / settleInOrder: every step runs, failures are thrown at the end", () => {
  it("throws nothing when all succeed, the failure itself for one, an AggregateError for several", async () => {
    await expect(settleAll([Promise.resolve(1), Promise.resolve(2)], () => "never")).resolves.toBeUndefined();
    const one = new Error("one");
    await expect(settleAll([Promise.resolve(1), Promise.reject(one)], () => "never")).rejects.toBe(one);
    const both = settleAll([Promise.reject(new Error("a")), Promise.reject(new Error("b"))], (n) => `${n} failed`);
    await expect(both).rejects.toBeInstanceOf(AggregateError);
    await expect(both).rejects.toMatchObject({ message: "2 failed", errors: [{ message: "a" }, { message: "b" }] });
  });

  it("runs ordered steps one after the other, each after a failure before it", async () => {
    const ran: string[] = [];
    const step =
      (name: string, fail = false) =>
      async () => {
        await new Promise((r) => setTimeout(r, 5));
        ran.push(name);
        if (fail) throw new Error(name);
      };
    const closing = settleInOrder([step("server", true), step("traces"), step("services", true)], (n) => `${n} steps`);
    await expect(closing).rejects.toMatchObject({
      message: "2 steps",
      errors: [{ message: "server" }, { message: "services" }],
    });
    expect(ran).toEqual(["server", "traces", "services"]);
    // A step may also return nothing (an optional resource).
    await expect(settleInOrder([() => undefined], () => "never")).resolves.toBeUndefined();
  });

  it("throwFailures is the same rule for failures already collected", () => {
    expect(() => throwFailures([], () => "never")).not.toThrow();
    expect(() => throwFailures(["x"], () => "never")).toThrow("x");
    expect(() => throwFailures(["x", "y"], (n) => `${n}`)).toThrow(AggregateError);
  });
});
