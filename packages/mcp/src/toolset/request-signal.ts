import { AbortScope } from "@agentkit/core/internal";

/**
 * Runs one MCP SDK request with a signal of its own that follows `signal` (the run's) while the
 * request is in flight. The SDK adds an abort listener to the signal of every request and never
 * removes it: given the run's signal, each request would leave a listener (and its client) on
 * it, and an abort would then send the server a cancellation for every request already answered.
 * The request's signal is released when it settles, so it never aborts afterwards.
 */
export async function withRequestSignal<T>(
  signal: AbortSignal | undefined,
  request: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!signal) return request(undefined);
  const scope = AbortScope.under(signal);
  try {
    return await request(scope.signal);
  } finally {
    scope.release();
  }
}
