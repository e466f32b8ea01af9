import { boundedResponse, DEFAULT_MAX_RESPONSE_BYTES } from "../errors/bounded-response.js";
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
 * What the SDK reads of a response is bounded by `maxResponseBytes` (`boundedResponse`).
 */
export function createGeminiFetch(options: GeminiFetchOptions = {}): typeof fetch {
  const { facts, maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES } = options;
  return async (input, init) => {
    const response = await fetch(input, withoutUndiciTimeouts(init));
    if (facts && !response.ok) facts.retryAfter = response.headers.get("retry-after");
    return boundedResponse(response, "gemini", maxResponseBytes);
  };
}

export interface GeminiFetchOptions {
  /** Where a failed response's `Retry-After` is noted. */
  facts?: FailedResponseFacts;
  maxResponseBytes?: number;
}

function withoutUndiciTimeouts(init: RequestInit | undefined): RequestInit | undefined {
  const global = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER] as Dispatcher | undefined;
  if (!global || typeof global.dispatch !== "function") return init;
  const dispatcher: Dispatcher = {
    dispatch: (options, handler) => global.dispatch({ ...options, headersTimeout: 0, bodyTimeout: 0 }, handler),
  };
  return { ...init, dispatcher } as unknown as RequestInit;
}
