import { ErrorCategory, ProviderError } from "./provider-error.js";

/**
 * Default `maxResponseBytes` of the vendor-SDK models: room for a page of inline images or a
 * long generation, far below what would exhaust a server's heap.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/**
 * A provider's response with its body counted as the SDK reads it: a JSON answer may hold at most
 * `maxBytes` bytes, a server-sent event stream at most `maxBytes` in any one event (a stream as a
 * whole is bounded by the call's time, and each event by this). The SDKs read bodies whole (a JSON
 * answer) or buffer up to the next event boundary, so without a bound a broken gateway or a hostile
 * endpoint could fill the process's heap. Past the bound the body errors with a final
 * `ProviderError` and is cancelled, which closes the connection; the rest is never read.
 */
export function boundedResponse(response: Response, provider: string, maxBytes: number): Response {
  const body = response.body;
  if (!body) return response;
  const stream = /^\s*text\/event-stream/i.test(response.headers.get("content-type") ?? "");
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (!stream && declared > maxBytes) {
    // Refused before reading: cancelling fetch's body closes the connection.
    void body.cancel().catch(() => undefined);
    const error = tooLarge(provider, maxBytes, stream);
    return like(response, new ReadableStream({ start: (controller) => controller.error(error) }));
  }
  const counter = stream ? new EventBytes() : new TotalBytes();
  const transform = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (counter.add(chunk) > maxBytes) controller.error(tooLarge(provider, maxBytes, stream));
      else controller.enqueue(chunk);
    },
  });
  // A transform that errors cancels its source: fetch then closes the connection.
  return like(response, body.pipeThrough(transform));
}

/** A response with `response`'s status, headers and URL, and another body. */
function like(response: Response, body: ReadableStream<Uint8Array>): Response {
  const copy = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // Not carried by the constructor; an SDK may name the URL in its errors.
  Object.defineProperty(copy, "url", { value: response.url });
  return copy;
}

/** `fetch`, with each response's body bounded as `boundedResponse` does. */
export function boundedFetch(fetchImpl: typeof fetch, provider: string, maxBytes: number): typeof fetch {
  return async (input, init) => boundedResponse(await fetchImpl(input, init), provider, maxBytes);
}

function tooLarge(provider: string, maxBytes: number, stream: boolean): ProviderError {
  const what = stream ? "an event of its response stream" : "its response";
  return new ProviderError({
    category: ErrorCategory.SERVER_ERROR,
    retryable: false,
    provider,
    message:
      `The ${provider} server sent more than ${maxBytes} bytes in ${what}; the rest was not read. ` +
      "Raise the model's maxResponseBytes option if answers this large are expected.",
  });
}

/** Bytes of a whole body. */
class TotalBytes {
  private total = 0;

  add(chunk: Uint8Array): number {
    this.total += chunk.byteLength;
    return this.total;
  }
}

/**
 * The size of the largest event a chunk of a server-sent event stream ends or continues: events
 * end at a blank line, that is two line ends in a row, where a line ends with CRLF, LF or CR.
 * Only line-end bytes are looked at (found by `indexOf`), so a large event costs a scan of its
 * line ends, not of every byte.
 */
class EventBytes {
  private sinceBoundary = 0;
  /** The last byte seen ended a line: a line end right after it makes a blank line. */
  private atLineStart = false;
  /** The last byte seen was CR (an LF right after it belongs to the same line end). */
  private lastWasCr = false;

  add(chunk: Uint8Array): number {
    let largest = 0;
    let eventStart = 0;
    let position = 0;
    const ends = new LineEnds(chunk);
    let lineEnd = ends.next(0);
    while (lineEnd !== -1) {
      const byte = chunk[lineEnd]!;
      const adjacent = lineEnd === position;
      if (byte === LF && this.lastWasCr && adjacent) {
        // The LF of a CRLF: the line end was already counted at the CR.
        this.lastWasCr = false;
      } else {
        if (this.atLineStart && adjacent) {
          // An event ends here: count it whole, then start the next one after this byte.
          largest = Math.max(largest, this.sinceBoundary + lineEnd + 1 - eventStart);
          this.sinceBoundary = 0;
          eventStart = lineEnd + 1;
        }
        this.atLineStart = true;
        this.lastWasCr = byte === CR;
      }
      position = lineEnd + 1;
      lineEnd = ends.next(position);
    }
    if (position < chunk.length) {
      this.atLineStart = false;
      this.lastWasCr = false;
    }
    this.sinceBoundary += chunk.byteLength - eventStart;
    return Math.max(largest, this.sinceBoundary);
  }
}

/** The CR and LF bytes of a chunk in order; each kind is searched for again only once passed. */
class LineEnds {
  private lf: number;
  private cr: number;

  constructor(private readonly chunk: Uint8Array) {
    this.lf = chunk.indexOf(LF);
    this.cr = chunk.indexOf(CR);
  }

  /** The index of the next CR or LF at or after `from`, or -1. */
  next(from: number): number {
    if (this.lf !== -1 && this.lf < from) this.lf = this.chunk.indexOf(LF, from);
    if (this.cr !== -1 && this.cr < from) this.cr = this.chunk.indexOf(CR, from);
    if (this.lf === -1) return this.cr;
    if (this.cr === -1) return this.lf;
    return Math.min(this.lf, this.cr);
  }
}
