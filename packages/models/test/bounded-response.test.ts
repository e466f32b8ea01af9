import { describe, expect, it } from "@jest/globals";
import { boundedResponse } from "../src/errors/bounded-response.js";
import { ProviderError } from "../src/errors/provider-error.js";

const bytes = (text: string) => new TextEncoder().encode(text);

/** A response over a body of the given chunks; `cancelled` records whether its source was cancelled. */
function responseOf(chunks: string[], headers: Record<string, string> = {}) {
  let markCancelled = () => {};
  const state = { cancelled: new Promise<void>((resolve) => (markCancelled = resolve)), pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next === undefined) controller.close();
      else controller.enqueue(bytes(next));
    },
    cancel() {
      markCancelled();
    },
  });
  return { response: new Response(body, { status: 200, headers }), state };
}

const json = { "content-type": "application/json" };
const sse = { "content-type": "text/event-stream; charset=utf-8" };

async function readError(response: Response): Promise<unknown> {
  return response.text().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("boundedResponse, a JSON answer", () => {
  it("passes a body within the limit through unchanged, with status, headers and url", async () => {
    const { response } = responseOf(['{"a":', '"0123456789"}'], { ...json, "x-request-id": "r1" });
    const bounded = boundedResponse(response, "openai", 18);
    expect(bounded.status).toBe(200);
    expect(bounded.headers.get("x-request-id")).toBe("r1");
    expect(bounded.url).toBe(response.url);
    expect(await bounded.json()).toEqual({ a: "0123456789" });
  });

  it("fails one byte past the limit with a final ProviderError and cancels the source", async () => {
    const { response, state } = responseOf(['{"a":', '"0123456789"}', "never read"], json);
    const error = await readError(boundedResponse(response, "openai", 17));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ category: "SERVER_ERROR", retryable: false, provider: "openai" });
    expect((error as Error).message).toMatch(/more than 17 bytes in its response.*maxResponseBytes/);
    // Resolves only once the source is cancelled (else the test times out).
    await state.cancelled;
  });

  it("refuses a Content-Length above the limit before reading the body", async () => {
    const { response, state } = responseOf(["x".repeat(10)], { ...json, "content-length": "1000" });
    const error = await readError(boundedResponse(response, "gemini", 100));
    expect(error).toMatchObject({ category: "SERVER_ERROR", provider: "gemini" });
    await state.cancelled;
  });

  it("leaves a response without a body as it is", () => {
    const response = new Response(null, { status: 204 });
    expect(boundedResponse(response, "openai", 1)).toBe(response);
  });
});

describe("boundedResponse, an event stream", () => {
  const event = (n: number) => `data: {"n":${n}}\n\n`;

  it("bounds each event, not the stream: many small events pass whatever their total", async () => {
    const events = Array.from({ length: 200 }, (_, n) => event(n % 10));
    const { response } = responseOf(events, sse);
    const text = await boundedResponse(response, "openai", 20).text();
    expect(text).toBe(events.join(""));
  });

  it("fails an event larger than the limit", async () => {
    const { response, state } = responseOf([event(1), `data: ${"x".repeat(50)}`, "\n\n", event(2)], sse);
    const error = await readError(boundedResponse(response, "anthropic", 40));
    expect(error).toMatchObject({ category: "SERVER_ERROR", retryable: false, provider: "anthropic" });
    expect((error as Error).message).toMatch(/in an event of its response stream/);
    await state.cancelled;
  });

  it("fails an event larger than the limit that arrives whole, its blank line in the same chunk", async () => {
    const { response } = responseOf([`${event(1)}data: ${"x".repeat(50)}\n\n${event(2)}`], sse);
    expect(await readError(boundedResponse(response, "openai", 40))).toBeInstanceOf(ProviderError);
  });

  it("fails an event of many lines without a blank line between them", async () => {
    const lines = Array.from({ length: 20 }, () => "data: x\n");
    const { response } = responseOf(lines, sse);
    expect(await readError(boundedResponse(response, "openai", 60))).toBeInstanceOf(ProviderError);
  });

  // Every way a blank line may end an event, split at every byte across chunks: a boundary found
  // in any split resets the count, so events of 18 bytes pass a limit of 24 however they arrive.
  it.each([
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["CR", "\r"],
  ])("finds event boundaries written with %s, split at any byte", async (_name, eol) => {
    const one = `data: {"n":1}${eol}${eol}`;
    const stream = one.repeat(6);
    for (let split = 1; split < stream.length; split++) {
      const chunks: string[] = [];
      for (let at = 0; at < stream.length; at += split) chunks.push(stream.slice(at, at + split));
      const { response } = responseOf(chunks, sse);
      expect(await boundedResponse(response, "gemini", one.length + 6).text()).toBe(stream);
    }
  });

  it("does not take a line end after content for a blank line", async () => {
    // "\r\n" then content then "\n": two line ends, never adjacent, so no boundary.
    const { response } = responseOf(["data: a\r\n", "data: b\n", "data: c\n", "data: d\n"], sse);
    expect(await readError(boundedResponse(response, "openai", 30))).toBeInstanceOf(ProviderError);
  });
});
