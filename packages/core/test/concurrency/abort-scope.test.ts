import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, jest } from "@jest/globals";
import { AbortScope, endedReason } from "../../src/concurrency/abort-scope.js";
import { RunAbortedError } from "../../src/errors/run-errors.js";

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

describe("AbortScope", () => {
  it("follows an outside signal with its reason, through one listener that end removes", () => {
    const outside = new AbortController();
    const scope = AbortScope.under(outside.signal);
    expect(abortListeners(outside.signal)).toBe(1);
    const reason = new Error("stop");
    outside.abort(reason);
    expect(scope.signal.aborted).toBe(true);
    expect(scope.signal.reason).toBe(reason);

    const other = new AbortController();
    const ended = AbortScope.under(other.signal);
    ended.end();
    expect(abortListeners(other.signal)).toBe(0);
    other.abort(new Error("later"));
    expect(ended.signal.reason).toBeInstanceOf(RunAbortedError);
  });

  it("keeps scopes made under a scope as children, without listening, and aborts them with it", () => {
    const root = AbortScope.under(undefined);
    const children = Array.from({ length: 1000 }, () => AbortScope.under(root.signal));
    const grandchild = AbortScope.under(children[0]!.signal);
    expect(abortListeners(root.signal)).toBe(0);
    expect(abortListeners(children[0]!.signal)).toBe(0);
    // By the time the root's own listeners run, everything under it is aborted already.
    let seenByRootListener: boolean[] = [];
    root.signal.addEventListener("abort", () => {
      seenByRootListener = [...children.map((c) => c.signal.aborted), grandchild.signal.aborted];
    });
    const reason = new Error("cancelled");
    root.abort(reason);
    expect(seenByRootListener).toHaveLength(1001);
    expect(seenByRootListener.every(Boolean)).toBe(true);
    for (const scope of [...children, grandchild]) expect(scope.signal.reason).toBe(reason);
  });

  it("ends a scope: it stops following its parent and aborts what still listens with a stackless RunAbortedError", () => {
    const root = AbortScope.under(undefined);
    const child = AbortScope.under(root.signal);
    let heard: unknown;
    child.signal.addEventListener("abort", () => (heard = child.signal.reason));
    const limit = Error.stackTraceLimit;
    child.end();
    expect(Error.stackTraceLimit).toBe(limit);
    expect(heard).toBeInstanceOf(RunAbortedError);
    expect((heard as RunAbortedError).code).toBe("RUN_ABORTED");
    expect((heard as Error).stack).not.toMatch(/\n\s+at /);
    // Ended: the parent's later abort does not reach it, and a second end changes nothing.
    root.abort(new Error("late"));
    expect(child.signal.reason).toBe(heard);
    child.end();
    expect(child.signal.reason).toBe(heard);
  });

  it("releases a scope: it stops following its parent and its signal never aborts", () => {
    const outside = new AbortController();
    const released = AbortScope.under(outside.signal);
    let fired = 0;
    released.signal.addEventListener("abort", () => fired++);
    released.release();
    expect(abortListeners(outside.signal)).toBe(0);
    outside.abort(new Error("later"));
    expect(released.signal.aborted).toBe(false);
    expect(fired).toBe(0);

    const root = AbortScope.under(undefined);
    const child = AbortScope.under(root.signal);
    child.release();
    root.abort(new Error("root stops"));
    expect(child.signal.aborted).toBe(false);
  });

  it("is aborted at once under a signal that already is, and detaches a scope aborted by its own abort", () => {
    const done = new AbortController();
    const reason = new Error("already");
    done.abort(reason);
    expect(AbortScope.under(done.signal).signal.reason).toBe(reason);

    const outside = new AbortController();
    const scope = AbortScope.under(outside.signal);
    const timeout = new Error("timed out");
    scope.abort(timeout);
    expect(abortListeners(outside.signal)).toBe(0);
    scope.end();
    expect(scope.signal.reason).toBe(timeout);
  });

  it("still makes an ended reason where Error.stackTraceLimit cannot be set (frozen intrinsics)", () => {
    const own = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit")!;
    Object.defineProperty(Error, "stackTraceLimit", { ...own, writable: false });
    try {
      const scope = AbortScope.under(undefined);
      scope.end();
      expect(scope.signal.reason).toBeInstanceOf(RunAbortedError);
      expect(endedReason()).toBeInstanceOf(RunAbortedError);
    } finally {
      Object.defineProperty(Error, "stackTraceLimit", own);
    }
    expect(Error.stackTraceLimit).toBe(own.value);
  });

  it("makes ended reasons without a stack and leaves Error.stackTraceLimit as it was", () => {
    const limit = Error.stackTraceLimit;
    const error = endedReason();
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(error.stack).not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error("x").stack).toMatch(/\n\s+at /);
  });

  describe("abortAfter", () => {
    afterEach(() => {
      jest.useRealTimers();
    });

    it("aborts the scope and its children with the deadline's reason once it passes, and says so", () => {
      jest.useFakeTimers();
      const outside = new AbortController();
      const scope = AbortScope.under(outside.signal).abortAfter(500, () => new Error("too slow"));
      const child = AbortScope.under(scope.signal);
      jest.advanceTimersByTime(499);
      expect(scope.signal.aborted).toBe(false);
      jest.advanceTimersByTime(1);
      expect(scope.timedOut).toBe(true);
      expect((scope.signal.reason as Error).message).toBe("too slow");
      expect(child.signal.reason).toBe(scope.signal.reason);
      // Aborting stopped following the outside signal.
      expect(abortListeners(outside.signal)).toBe(0);
    });

    it("aborts with a TimeoutError naming the time when given no reason", () => {
      jest.useFakeTimers();
      const scope = AbortScope.under(undefined).abortAfter(250);
      jest.advanceTimersByTime(250);
      expect(scope.timedOut).toBe(true);
      expect(scope.signal.reason).toBeInstanceOf(DOMException);
      expect((scope.signal.reason as DOMException).name).toBe("TimeoutError");
      expect((scope.signal.reason as DOMException).message).toBe("No answer within 250 ms.");
    });

    it("clears its timer when the scope ends, is released or aborted first, and is not timed out then", () => {
      jest.useFakeTimers();
      const outside = new AbortController();
      const ended = AbortScope.under(undefined).abortAfter(500, () => new Error("late"));
      const released = AbortScope.under(undefined).abortAfter(500, () => new Error("late"));
      const followed = AbortScope.under(outside.signal).abortAfter(500, () => new Error("late"));
      expect(jest.getTimerCount()).toBe(3);
      ended.end();
      released.release();
      outside.abort(new Error("the caller's"));
      expect(jest.getTimerCount()).toBe(0);
      jest.advanceTimersByTime(1000);
      expect([ended.timedOut, released.timedOut, followed.timedOut]).toEqual([false, false, false]);
      expect(released.signal.aborted).toBe(false);
      expect((followed.signal.reason as Error).message).toBe("the caller's");
    });

    it("sets no timer on a scope already aborted, and refuses a second deadline", () => {
      jest.useFakeTimers();
      const outside = new AbortController();
      outside.abort(new Error("before"));
      const scope = AbortScope.under(outside.signal).abortAfter(500, () => new Error("late"));
      expect(jest.getTimerCount()).toBe(0);
      expect(scope.timedOut).toBe(false);
      const open = AbortScope.under(undefined).abortAfter(500, () => new Error("late"));
      expect(() => open.abortAfter(10, () => new Error("again"))).toThrow(/already set/);
      open.release();
    });
  });
});
