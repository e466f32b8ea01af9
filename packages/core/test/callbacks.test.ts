import { describe, expect, it, jest } from "@jest/globals";
import { callbackList, runCallbackSlot } from "../src/internal.js";

type Callback = (args: { n: number }) => string | undefined | void | Promise<string | undefined | void>;

describe("callbackList", () => {
  it("normalizes a slot to a list", () => {
    const f: Callback = () => undefined;
    expect(callbackList<Callback>(undefined)).toEqual([]);
    expect(callbackList(f)).toEqual([f]);
    expect(callbackList([f, f])).toEqual([f, f]);
  });
});

describe("runCallbackSlot", () => {
  it("returns undefined for an empty slot", async () => {
    expect(await runCallbackSlot<{ n: number }, string>(undefined, { n: 1 })).toBeUndefined();
    expect(await runCallbackSlot<{ n: number }, string>([], { n: 1 })).toBeUndefined();
  });

  it("runs a single sync or async function with the arguments", async () => {
    expect(await runCallbackSlot<{ n: number }, string>(({ n }) => `sync ${n}`, { n: 1 })).toBe("sync 1");
    expect(await runCallbackSlot<{ n: number }, string>(async ({ n }) => `async ${n}`, { n: 2 })).toBe("async 2");
  });

  it("runs a list in order until the first value; later callbacks are not called", async () => {
    const order: string[] = [];
    const first = jest.fn<Callback>(() => {
      order.push("first");
    });
    const second = jest.fn<Callback>(async () => {
      order.push("second");
      return "answer";
    });
    const third = jest.fn<Callback>(() => {
      order.push("third");
      return "too late";
    });
    expect(await runCallbackSlot<{ n: number }, string>([first, second, third], { n: 3 })).toBe("answer");
    expect(order).toEqual(["first", "second"]);
    expect(third).not.toHaveBeenCalled();
    expect(first).toHaveBeenCalledWith({ n: 3 });
  });

  it("awaits each callback before the next and skips null results", async () => {
    const order: string[] = [];
    const slow: Callback = async () => {
      await new Promise((r) => setTimeout(r, 10));
      order.push("slow");
      return null as unknown as undefined;
    };
    const fast: Callback = () => {
      order.push("fast");
      return "";
    };
    // An empty string is a value (only undefined/null mean "no answer").
    expect(await runCallbackSlot<{ n: number }, string>([slow, fast], { n: 0 })).toBe("");
    expect(order).toEqual(["slow", "fast"]);
  });

  it("propagates a thrown error and stops", async () => {
    const after = jest.fn<Callback>(() => "x");
    await expect(
      runCallbackSlot<{ n: number }, string>(
        [
          () => {
            throw new Error("callback failed");
          },
          after,
        ],
        { n: 0 },
      ),
    ).rejects.toThrow("callback failed");
    expect(after).not.toHaveBeenCalled();
  });
});
