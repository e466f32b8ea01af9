import { AgentKitError } from "../errors/agentkit-error.js";

/** A response body was larger than its reader allowed (`maxBytes`). Callers wrap it in their own error. */
export class ResponseTooLargeError extends AgentKitError {
  readonly maxBytes: number;

  constructor(maxBytes: number, declared?: number) {
    const detail = declared === undefined ? "" : ` (its Content-Length is ${declared})`;
    super("RESPONSE_TOO_LARGE", `The response body exceeded the limit of ${maxBytes} bytes${detail}.`);
    this.maxBytes = maxBytes;
  }
}

export interface ReadBodyLimitedOptions {
  /** Bytes of body (as received, before decoding) accepted; one more fails. */
  maxBytes: number;
  /** Aborting it cancels the body and rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * A fetch `Response`'s body as UTF-8 text (what `response.text()` gives), read as a stream so
 * a broken or hostile server cannot fill memory: past `maxBytes` (or with a `Content-Length`
 * above it) the body is cancelled, which closes the connection, and the read rejects with
 * `ResponseTooLargeError`. At most `maxBytes` plus one chunk is ever held.
 */
export async function readBodyLimited(response: Response, options: ReadBodyLimitedOptions): Promise<string> {
  const { maxBytes, signal } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
    throw new RangeError(`maxBytes must be a non-negative integer; got ${maxBytes}.`);
  const body = response.body;
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  const early = signal?.aborted
    ? signal.reason
    : declared > maxBytes
      ? new ResponseTooLargeError(maxBytes, declared)
      : undefined;
  if (early !== undefined) {
    await body?.cancel(early).catch(() => undefined);
    throw early;
  }
  if (!body) return "";
  const reader = body.getReader();
  // A cancel ends a pending read as done; the check after each read turns that into the abort.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined);
  signal?.addEventListener("abort", onAbort, { once: true });
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let received = 0;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        // fetch errors its body with its own abort error when the same signal aborts it.
        throw signal?.aborted ? signal.reason : error;
      }
      if (signal?.aborted) throw signal.reason;
      if (chunk.done) break;
      if (!(chunk.value instanceof Uint8Array))
        throw new TypeError("The response body stream yielded a non-byte chunk.");
      received += chunk.value.byteLength;
      if (received > maxBytes) throw new ResponseTooLargeError(maxBytes);
      parts.push(decoder.decode(chunk.value, { stream: true }));
    }
  } catch (error) {
    // Cancelling fetch's body closes its connection: the rest is never sent over it.
    await reader.cancel(error).catch(() => undefined);
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
  parts.push(decoder.decode());
  return parts.join("");
}
