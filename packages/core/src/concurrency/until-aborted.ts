import { RunAbortedError } from "../errors/run-errors.js";

/**
 * `promise`, or a rejection with `reason()` (by default a `RunAbortedError` caused by the signal's
 * reason) as soon as `signal` aborts: for waiting on work shared with others (one connection or
 * card fetch for several runs), which must go on when one waiter leaves. The work itself is not
 * stopped; its later failure is then ignored. The listener is removed when either settles.
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  reason: () => unknown = () => new RunAbortedError({ cause: signal.reason }),
): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
