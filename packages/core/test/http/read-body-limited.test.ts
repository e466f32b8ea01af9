import { getEventListeners } from "node:events";
import { describe, expect, it } from "@jest/globals";
import { readBodyLimited, ResponseTooLargeError } from "../../src/internal.js";

/** A response over these byte chunks, recording how many the reader pulled and whether it cancelled. */
function streamed(
  chunks: Uint8Array[],
  options: { endless?: boolean; hangAfter?: number; headers?: Record<string, string> } = {},
) {
  let hung = () => undefined as void;
  const seen = { pulls: 0, cancelled: undefined as unknown, hanging: new Promise<void>((r) => (hung = r)) };
  let next = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        seen.pulls += 1;
        if (options.hangAfter !== undefined && next >= options.hangAfter) {
          hung();
          return new Promise<void>(() => undefined);
        }
        if (next < chunks.length) controller.enqueue(chunks[next++]!);
        else if (options.endless) controller.enqueue(new Uint8Array(1024).fill(97));
        else controller.close();
      },
      cancel(reason) {
        seen.cancelled = reason;
      },
    },
    { highWaterMark: 0 },
  );
  return { response: new Response(stream, { headers: options.headers }), seen };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe("readBodyLimited", () => {
  it("reads a body of exactly maxBytes", async () => {
    const { response } = streamed([bytes("abc"), bytes("defg")]);
    await expect(readBodyLimited(response, { maxBytes: 7 })).resolves.toBe("abcdefg");
  });

  it("fails one byte over the limit, cancelling the body instead of reading on", async () => {
    const { response, seen } = streamed([bytes("abc"), bytes("defgh")], { endless: true });
    const error = await readBodyLimited(response, { maxBytes: 7 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).maxBytes).toBe(7);
    expect((error as Error).message).toBe("The response body exceeded the limit of 7 bytes.");
    expect(seen.cancelled).toBe(error);
    expect(seen.pulls).toBe(2);
  });

  it("refuses a Content-Length above the limit before reading", async () => {
    const { response, seen } = streamed([bytes("abc")], { endless: true, headers: { "content-length": "8" } });
    const error = await readBodyLimited(response, { maxBytes: 7 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toContain("7 bytes (its Content-Length is 8)");
    expect(seen.pulls).toBe(0);
    expect(seen.cancelled).toBe(error);
  });

  it("decodes multi-byte UTF-8 split across chunks, counting bytes", async () => {
    const text = "é€😀 ok";
    const all = bytes(text);
    const oneByteChunks = [...all].map((b) => Uint8Array.of(b));
    await expect(readBodyLimited(streamed(oneByteChunks).response, { maxBytes: all.length })).resolves.toBe(text);
    await expect(readBodyLimited(streamed(oneByteChunks).response, { maxBytes: all.length - 1 })).rejects.toThrow(
      ResponseTooLargeError,
    );
  });

  it("rejects with the signal's reason when aborted mid-read, and cancels the body", async () => {
    const { response, seen } = streamed([bytes("first")], { hangAfter: 1 });
    const controller = new AbortController();
    const reading = readBodyLimited(response, { maxBytes: 100, signal: controller.signal });
    await seen.hanging;
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    expect(seen.cancelled).toBe(reason);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("rejects at once under an aborted signal, and leaves no listener after a read", async () => {
    const aborted = streamed([bytes("x")]);
    const reason = new Error("already");
    await expect(readBodyLimited(aborted.response, { maxBytes: 10, signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    expect(aborted.seen.pulls).toBe(0);
    const signal = new AbortController().signal;
    await expect(readBodyLimited(streamed([bytes("x")]).response, { maxBytes: 10, signal })).resolves.toBe("x");
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("reads an empty body, and refuses a bad limit", async () => {
    await expect(readBodyLimited(new Response(null), { maxBytes: 0 })).resolves.toBe("");
    await expect(readBodyLimited(new Response("x"), { maxBytes: -1 })).rejects.toThrow(RangeError);
    await expect(readBodyLimited(new Response("x"), { maxBytes: 1.5 })).rejects.toThrow(/maxBytes/);
  });
});
