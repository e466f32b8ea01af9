import { RunAbortedError } from "../errors/run-errors.js";

export interface UntilAbortedOptions<T> {
  /** The rejection on abort (default: a `RunAbortedError` caused by the signal's reason). */
  reason?: () => unknown;
  /** Given what the work yields after the abort (a lease, a connection), to release it. */
  discard?: (late: T) => void;
}

/**
 * `promise`, or a rejection as soon as `signal` aborts: for waiting on work that must not hold
 * the waiter (a store that does not answer) or that is shared with others (one connection or
 * card fetch for several runs) and goes on when one waiter leaves. The work itself is not
 * stopped: its later failure is ignored, and what it yields late goes to `discard`. One listener,
 * removed when either settles.
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  options: UntilAbortedOptions<T> = {},
): Promise<T> {
  const reason = () => (options.reason ? options.reason() : new RunAbortedError({ cause: signal.reason }));
  const dropLate = () => {
    promise.then(
      (late) => options.discard?.(late),
      () => undefined,
    );
  };
  if (signal.aborted) {
    dropLate();
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      dropLate();
      reject(reason());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
