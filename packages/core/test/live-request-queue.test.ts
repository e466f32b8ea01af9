import { describe, expect, it } from "@jest/globals";
import { createUserContent, LiveRequestQueue, type LiveRequest } from "../src/index.js";

describe("LiveRequestQueue", () => {
  it("delivers buffered requests first in, first out", async () => {
    const queue = new LiveRequestQueue();
    queue.sendContent(createUserContent("one"));
    queue.sendRealtime({ mimeType: "audio/pcm", data: "AAAA" });
    queue.send({ content: createUserContent("three") });
    expect(await queue.get()).toEqual({ content: createUserContent("one") });
    expect(await queue.get()).toEqual({ blob: { mimeType: "audio/pcm", data: "AAAA" } });
    expect(await queue.get()).toEqual({ content: createUserContent("three") });
  });

  it("wakes waiting readers in order as requests arrive", async () => {
    const queue = new LiveRequestQueue();
    const first = queue.get();
    const second = queue.get();
    queue.sendContent(createUserContent("a"));
    queue.sendContent(createUserContent("b"));
    expect(await first).toEqual({ content: createUserContent("a") });
    expect(await second).toEqual({ content: createUserContent("b") });
  });

  it("close drains what was sent, then answers close; later sends are ignored", async () => {
    const queue = new LiveRequestQueue();
    queue.sendContent(createUserContent("last"));
    queue.close();
    expect(queue.isClosed).toBe(true);
    queue.sendContent(createUserContent("ignored"));
    expect(await queue.get()).toEqual({ content: createUserContent("last") });
    expect(await queue.get()).toEqual({ close: true });
    expect(await queue.get()).toEqual({ close: true });
  });

  it("close wakes every waiting reader", async () => {
    const queue = new LiveRequestQueue();
    const readers = [queue.get(), queue.get()];
    queue.close();
    expect(await Promise.all(readers)).toEqual([{ close: true }, { close: true }]);
  });

  it("an aborted get resolves close without losing later requests", async () => {
    const queue = new LiveRequestQueue();
    const controller = new AbortController();
    const aborted = queue.get(controller.signal);
    controller.abort();
    expect(await aborted).toEqual({ close: true });
    queue.sendContent(createUserContent("kept"));
    expect(await queue.get()).toEqual({ content: createUserContent("kept") });
    const preAborted = new AbortController();
    preAborted.abort();
    expect(await queue.get(preAborted.signal)).toEqual({ close: true });
    expect(queue.isClosed).toBe(false);
  });

  it("iterates requests until close, without yielding the close", async () => {
    const queue = new LiveRequestQueue();
    const seen: LiveRequest[] = [];
    const reading = (async () => {
      for await (const request of queue) seen.push(request);
    })();
    queue.sendContent(createUserContent("x"));
    await new Promise((r) => setImmediate(r)); // the reader takes x and waits again
    queue.sendContent(createUserContent("y"));
    queue.close();
    await reading;
    expect(seen).toEqual([{ content: createUserContent("x") }, { content: createUserContent("y") }]);
  });
});
