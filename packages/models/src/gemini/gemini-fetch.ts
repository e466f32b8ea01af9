import type { FailedResponseFacts } from "./error-mapping.js";

/** Where Node keeps undici's global dispatcher. */
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

interface Dispatcher {
  dispatch(options: Record<string, unknown>, handler: unknown): boolean;
}

/**
 * The `fetch` the SDK is given. Like the SDK's own default, a long generation is not cut by
 * undici's 300 s header/body timeouts (the model's `timeoutMs` bounds a call instead); the
 * global dispatcher is looked up per request because a given fetch skips the SDK's default.
 * With `facts`, a failed response's `Retry-After` is noted (the SDK's ApiError drops headers).
 */
export function createGeminiFetch(facts?: FailedResponseFacts): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, withoutUndiciTimeouts(init));
    if (facts && !response.ok) facts.retryAfter = response.headers.get("retry-after");
    return response;
  };
}

function withoutUndiciTimeouts(init: RequestInit | undefined): RequestInit | undefined {
  const global = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER] as Dispatcher | undefined;
  if (!global || typeof global.dispatch !== "function") return init;
  const dispatcher: Dispatcher = {
    dispatch: (options, handler) => global.dispatch({ ...options, headersTimeout: 0, bodyTimeout: 0 }, handler),
  };
  return { ...init, dispatcher } as unknown as RequestInit;
}
