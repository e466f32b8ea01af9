import { describe, expect, it } from "@jest/globals";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { RunAbortedError } from "../../src/index.js";
import { AbortWatch } from "../../src/runner/run-helpers.js";

// A full collection on demand (the test process runs without --expose-gc).
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

/** Resolves after the current job, so a WeakRef made in it no longer holds its target. */
const nextJob = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("AbortWatch", () => {
  it("does not keep the result of a settled step while the run goes on", async () => {
    const controller = new AbortController();
    const watch = new AbortWatch(controller.signal);
    const refs: WeakRef<object>[] = [];
    // In a function of its own: a suspended test function may keep its last local in a register.
    const step = async (i: number) => new WeakRef(await watch.race(Promise.resolve({ step: i, payload: [i] })));
    for (let i = 0; i < 3; i++) refs.push(await step(i));
    await nextJob();
    collect();
    // A race against one promise pending for the whole run kept every step's result here.
    expect(refs.map((ref) => ref.deref())).toEqual([undefined, undefined, undefined]);
    // The watch still works after that.
    const pending = watch.race(new Promise<never>(() => {}));
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toBeInstanceOf(RunAbortedError);
    watch.dispose();
  });

  it("rejects every race in progress on abort, with the signal's reason as cause", async () => {
    const controller = new AbortController();
    const watch = new AbortWatch(controller.signal);
    const reason = new Error("client left");
    const first = watch.race(new Promise<never>(() => {}));
    const second = watch.race(new Promise<never>(() => {}));
    controller.abort(reason);
    for (const race of [first, second]) {
      const error = await race.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RunAbortedError);
      expect((error as RunAbortedError).cause).toBe(reason);
    }
    watch.dispose();
  });

  it("keeps watching the races still in progress when overlapping ones settle", async () => {
    const controller = new AbortController();
    const watch = new AbortWatch(controller.signal);
    let finishFirst!: (value: string) => void;
    const first = watch.race(new Promise<string>((resolve) => (finishFirst = resolve)));
    const second = watch.race(new Promise<never>(() => {}));
    finishFirst("first");
    await expect(first).resolves.toBe("first");
    const third = watch.race(new Promise<never>(() => {}));
    controller.abort(new Error("stop"));
    await expect(second).rejects.toBeInstanceOf(RunAbortedError);
    await expect(third).rejects.toBeInstanceOf(RunAbortedError);
    watch.dispose();
  });

  it("a race started after the one before it settled is still rejected on abort", async () => {
    const controller = new AbortController();
    const watch = new AbortWatch(controller.signal);
    await expect(watch.race(Promise.resolve(1))).resolves.toBe(1);
    await expect(watch.race(Promise.reject(new Error("x")))).rejects.toThrow("x");
    const pending = watch.race(new Promise<never>(() => {}));
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(RunAbortedError);
    watch.dispose();
  });

  it("passes a step's value and error through, and a step settled before the abort keeps its value", async () => {
    const controller = new AbortController();
    const watch = new AbortWatch(controller.signal);
    await expect(watch.race(Promise.resolve("ok"))).resolves.toBe("ok");
    const failure = new Error("tool failed");
    await expect(watch.race(Promise.reject(failure))).rejects.toBe(failure);
    controller.abort();
    // Aborted: a settled step still wins, as a race with the abort did; a pending one loses.
    await expect(watch.race(Promise.resolve("done"))).resolves.toBe("done");
    await expect(watch.race(new Promise<never>(() => {}))).rejects.toBeInstanceOf(RunAbortedError);
    watch.dispose();
  });

  it("races nothing without a signal and removes its listener on dispose", async () => {
    const step = Promise.resolve(1);
    expect(new AbortWatch().race(step)).toBe(step);
    const controller = new AbortController();
    const watch = new AbortWatch(controller.signal);
    const pending = watch.race(new Promise<never>(() => {}));
    watch.dispose();
    controller.abort();
    // The listener is gone: the race is no longer cut by this signal.
    const outcome = await Promise.race([
      pending.then(
        () => "settled",
        () => "rejected",
      ),
      nextJob().then(() => "still pending"),
    ]);
    expect(outcome).toBe("still pending");
  });
});
