// The dev UI's SSE reader against a real node:http server: a handler that throws stops the
// read and closes the connection, so the server sees the client leave.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "@jest/globals";
import { Api } from "../src/ui/services/api.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A /run_sse that writes one event frame and then keeps the stream open until the client leaves. */
async function openStream(): Promise<{ url: string; clientLeft: Promise<void> }> {
  let left!: () => void;
  const clientLeft = new Promise<void>((resolve) => (left = resolve));
  server = createServer((req, res: ServerResponse) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(
      `data: ${JSON.stringify({ id: "e1", author: "agent", content: { role: "model", parts: [{ text: "hi" }] } })}\n\n`,
    );
    res.on("close", () => left());
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, clientLeft };
}

describe("Api.runSse", () => {
  it("cancels the stream when the event handler throws: the server sees the client go", async () => {
    const { url, clientLeft } = await openStream();
    const api = new Api(url);
    const request = {
      appName: "a",
      userId: "u",
      sessionId: "s",
      newMessage: { role: "user", parts: [] },
      streaming: true,
    };
    const run = api.runSse(
      request,
      () => {
        throw new Error("the view broke");
      },
      new AbortController().signal,
    );
    await expect(run).rejects.toThrow("the view broke");
    await clientLeft;
  });
});
