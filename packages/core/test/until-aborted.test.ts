import { describe, expect, it } from "@jest/globals";
import { getEventListeners } from "node:events";
import { RunAbortedError } from "../src/index.js";
import { untilAborted } from "../src/internal.js";

describe("untilAborted: one waiter leaves shared work, the work goes on", () => {
  it("settles with the work, and leaves no listener on the signal", async () => {
    const { signal } = new AbortController();
    await expect(untilAborted(Promise.resolve(7), signal)).resolves.toBe(7);
    await expect(untilAborted(Promise.reject(new Error("work failed")), signal)).rejects.toThrow("work failed");
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("rejects the waiter on abort while the work runs on for others", async () => {
    let finish!: (value: string) => void;
    const work = new Promise<string>((r) => (finish = r));
    const leaving = new AbortController();
    const left = untilAborted(work, leaving.signal);
    const staying = untilAborted(work, new AbortController().signal);
    leaving.abort(new Error("client left"));
    await expect(left).rejects.toBeInstanceOf(RunAbortedError);
    finish("done");
    await expect(staying).resolves.toBe("done");
  });

  it("an already aborted signal rejects at once with the given reason; the work's later failure is not unhandled", async () => {
    const controller = new AbortController();
    controller.abort();
    let fail!: (error: Error) => void;
    const work = new Promise<never>((_, reject) => (fail = reject));
    await expect(untilAborted(work, controller.signal, { reason: () => new Error("deadline") })).rejects.toThrow(
      "deadline",
    );
    fail(new Error("late failure")); // would be an unhandled rejection (a failed test) if not caught
    await new Promise((r) => setImmediate(r));
  });
});
