import { describe, expect, it } from "@jest/globals";
import { KeyedQueue } from "../../src/concurrency/keyed-queue.js";
import { RunAbortedError } from "../../src/errors/run-errors.js";

/** A promise and its resolver, to hold a task open until the test lets it finish. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("KeyedQueue.run", () => {
  it("runs tasks of one key one at a time in arrival order; another key does not wait", async () => {
    const queue = new KeyedQueue();
    const order: string[] = [];
    const first = gate();
    const a1 = queue.run("a", async () => {
      order.push("a1 start");
      await first.promise;
      order.push("a1 end");
      return 1;
    });
    const a2 = queue.run("a", () => {
      order.push("a2");
      return 2;
    });
    const b = queue.run("b", async () => {
      order.push("b");
      return 3;
    });
    expect(await b).toBe(3);
    expect(order).toEqual(["a1 start", "b"]);
    first.open();
    expect(await Promise.all([a1, a2])).toEqual([1, 2]);
    expect(order).toEqual(["a1 start", "b", "a1 end", "a2"]);
    expect(queue.size).toBe(0);
  });

  it("a task that throws synchronously, returns a value or rejects gives that outcome and frees the key", async () => {
    const queue = new KeyedQueue();
    const boom = new Error("boom");
    await expect(
      queue.run("k", () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(queue.size).toBe(0);
    await expect(queue.run("k", () => "plain")).resolves.toBe("plain");
    const rejected = queue.run("k", () => Promise.reject(boom));
    const next = queue.run("k", () => "after");
    await expect(rejected).rejects.toBe(boom);
    await expect(next).resolves.toBe("after");
    expect(queue.size).toBe(0);
  });

  it("a waiter whose signal aborts leaves the line with RunAbortedError; idle() waits for the holder", async () => {
    const queue = new KeyedQueue();
    const held = gate();
    const holder = queue.run("k", () => held.promise);
    const controller = new AbortController();
    const waiter = queue.run("k", () => "never", controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiter).rejects.toBeInstanceOf(RunAbortedError);
    let idle = false;
    const idlePromise = queue.idle().then(() => {
      idle = true;
    });
    expect(idle).toBe(false);
    held.open();
    await holder;
    await idlePromise;
    expect(idle).toBe(true);
    expect(queue.size).toBe(0);
  });
});
