import { cycleChecker } from "@agentkit/core/internal";

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise
      .finally(() => signal.removeEventListener("abort", onAbort))
      .then(resolve, (error: unknown) => reject(error as Error));
  });
}

/** Resolves `true` when `promise` settled within `ms`, `false` on timeout (never rejects). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * JSON text that never throws: BigInt as a decimal string, an object inside itself (a cycle) as
 * "[Circular]". An object met again elsewhere is written again (stored events share equal frozen
 * parts), as JSON.stringify writes it.
 */
export function safeStringify(value: unknown): string {
  const isCycle = cycleChecker();
  return JSON.stringify(value, function (this: unknown, _key, v: unknown) {
    if (typeof v === "bigint") return v.toString();
    if (typeof v !== "object" || v === null) return v;
    return isCycle(this, v) ? "[Circular]" : v;
  });
}
