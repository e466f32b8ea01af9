/**
 * The global `fetch`, with an abort's rejection turned into an `Error` of this realm when it is
 * not one. The OpenAI and Anthropic SDKs tell their own timeout (they abort the request) from a
 * connection failure by `instanceof Error` and the error's name `AbortError`; a rejection made
 * in another realm, such as Node's `DOMException` seen from a `vm` context (Jest runs tests in
 * one), fails the `instanceof` check, the SDK rewraps it as `Error("{}")`, the name is lost, and
 * an expired `timeoutMs` was reported as a NETWORK error instead of a TIMEOUT. Everything else
 * passes through unchanged; in a single realm this changes nothing.
 */
export function abortSafeFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  return fetch(input, init).catch((error: unknown) => {
    throw isForeignAbort(error) ? localAbortError(error) : error;
  });
}

function isForeignAbort(error: unknown): error is { name: string; message?: unknown } {
  return (
    !(error instanceof Error) &&
    typeof error === "object" &&
    error !== null &&
    (error as { name?: unknown }).name === "AbortError"
  );
}

function localAbortError(error: { message?: unknown }): Error {
  const local = new Error(typeof error.message === "string" ? error.message : "The operation was aborted.", {
    cause: error,
  });
  local.name = "AbortError";
  return local;
}
