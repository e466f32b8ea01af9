import { cycleChecker, untilAborted } from "@agentkit/core/internal";

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return signal ? untilAborted(promise, signal, { reason: () => signal.reason }) : promise;
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
