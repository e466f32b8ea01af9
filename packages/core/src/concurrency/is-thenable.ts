/**
 * True for anything `await` would wait on (a native promise or another library's thenable), so
 * code with a synchronous fast path never mistakes a foreign promise for a finished value.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
