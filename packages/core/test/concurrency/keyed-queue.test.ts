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
    // A task that returns a plain value frees the key in the call itself.
    const plain = queue.run("k", () => "plain");
    expect(queue.size).toBe(0);
    await expect(plain).resolves.toBe("plain");
    // A thenable that is not a Promise still holds the key until it settles.
    let settle!: (value: string) => void;
    // biome-ignore lint/suspicious/noThenProperty: a foreign thenable is what this case is about
    const thenable = { then: (resolve: (value: string) => void) => void (settle = resolve) };
    const adopted = queue.run("k", () => thenable as unknown as Promise<string>);
    await Promise.resolve();
    expect(queue.size).toBe(1);
    settle("adopted");
    await expect(adopted).resolves.toBe("adopted");
    expect(queue.size).toBe(0);
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

  it("keeps each key's order when a key held alone is joined by other keys and by waiters", async () => {
    // The first key taken while nothing else is held lives outside the Map; this crosses that
    // path with the Map's: a waiter arriving behind it, other keys before and after it frees.
    const queue = new KeyedQueue();
    const order: string[] = [];
    const a1Gate = gate();
    const b1Gate = gate();
    const a1 = queue.run("a", async () => {
      order.push("a1");
      await a1Gate.promise;
    });
    const b1 = queue.run("b", async () => {
      order.push("b1");
      await b1Gate.promise;
    });
    const a2 = queue.run("a", () => void order.push("a2"));
    const b2 = queue.run("b", () => void order.push("b2"));
    expect(queue.size).toBe(2);
    await Promise.resolve();
    expect(order).toEqual(["a1", "b1"]);
    let idle = false;
    const idlePromise = queue.idle().then(() => {
      idle = true;
    });
    a1Gate.open();
    await Promise.all([a1, a2]);
    expect(order).toEqual(["a1", "b1", "a2"]);
    // "b" is still held: "a" comes back through the Map and waits for nothing.
    const releaseA = await queue.acquire("a");
    expect(queue.size).toBe(2);
    releaseA();
    releaseA();
    expect(queue.size).toBe(1);
    expect(idle).toBe(false);
    b1Gate.open();
    await Promise.all([b1, b2, idlePromise]);
    expect(order).toEqual(["a1", "b1", "a2", "b2"]);
    expect(idle).toBe(true);
    expect(queue.size).toBe(0);
    // Free again: a key taken alone, then a waiter behind it, then released in turn.
    const releaseC = await queue.acquire("c");
    const c2 = queue.run("c", () => "c2");
    let c2Done = false;
    void c2.then(() => {
      c2Done = true;
    });
    await Promise.resolve();
    expect(c2Done).toBe(false);
    expect(queue.size).toBe(1);
    releaseC();
    await expect(c2).resolves.toBe("c2");
    expect(queue.size).toBe(0);
  });
});

describe("KeyedQueue.runNow", () => {
  it("gives a free key's finished task its value, or its error thrown, in the call", () => {
    const queue = new KeyedQueue();
    expect(queue.runNow("k", () => 7)).toBe(7);
    expect(queue.size).toBe(0);
    const boom = new Error("boom");
    expect(() =>
      queue.runNow("k", () => {
        throw boom;
      }),
    ).toThrow(boom);
    expect(queue.size).toBe(0);
  });

  it("gives a promise for a task that waits or a key that is held, in the key's order", async () => {
    const queue = new KeyedQueue();
    const first = gate();
    const order: string[] = [];
    const held = queue.runNow("k", async () => {
      await first.promise;
      order.push("first");
      return "first";
    });
    expect(held).toBeInstanceOf(Promise);
    // Behind a holder even a task that would finish at once waits, and answers with a promise.
    const behind = queue.runNow("k", () => {
      order.push("second");
      return "second";
    });
    expect(behind).toBeInstanceOf(Promise);
    expect(order).toEqual([]);
    first.open();
    expect(await Promise.all([held, behind])).toEqual(["first", "second"]);
    expect(order).toEqual(["first", "second"]);
    expect(queue.size).toBe(0);
  });

  it("throws RunAbortedError at once for an aborted signal, holding nothing", () => {
    const queue = new KeyedQueue();
    const controller = new AbortController();
    controller.abort();
    expect(() => queue.runNow("k", () => 1, controller.signal)).toThrow(RunAbortedError);
    expect(queue.size).toBe(0);
  });
});
