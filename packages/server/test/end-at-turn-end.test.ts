// JSON answers finished in one turn of the event loop leave together at its end
// (`endAtTurnEnd`, through `writeJsonText`): headers fixed at once, bodies written once the turn's
// other I/O is handled, and one response that cannot be ended never holds back the others.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "@jest/globals";
import { writeJsonText } from "../src/http/send-json.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that holds requests until `count` have arrived, then hands them to `answer` in one turn. */
async function holdingServer(count: number, answer: (held: Array<[IncomingMessage, ServerResponse]>) => void) {
  const held: Array<[IncomingMessage, ServerResponse]> = [];
  server = createServer((req, res) => {
    held.push([req, res]);
    if (held.length === count) answer(held.splice(0));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function call(port: number, method = "POST") {
  return new Promise<{ status: number; body: string; length: string | undefined }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path: "/", agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, length: res.headers["content-length"] }));
    });
    req.on("error", reject);
    req.end();
  });
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("writeJsonText at the end of the turn", () => {
  it("fixes the headers at once and ends every response of the turn together once it ends", async () => {
    const seen: Array<{ headersSent: boolean; endedInTurn: boolean; setHeaderError: string }> = [];
    let endedAfterTurn: boolean[] = [];
    const port = await holdingServer(3, (held) => {
      held.forEach(([, res], n) => {
        res.statusCode = 200 + n;
        writeJsonText(res, JSON.stringify({ n, text: "ünïcode «x»" }));
      });
      for (const [, res] of held) {
        let setHeaderError = "";
        try {
          res.setHeader("X-Late", "1");
        } catch (error) {
          setHeaderError = (error as { code?: string }).code ?? "";
        }
        seen.push({ headersSent: res.headersSent, endedInTurn: res.writableEnded, setHeaderError });
      }
      void nextTurn().then(() => (endedAfterTurn = held.map(([, res]) => res.writableEnded)));
    });
    const answers = await Promise.all([call(port), call(port), call(port)]);
    expect(seen).toEqual(
      Array(3).fill({ headersSent: true, endedInTurn: false, setHeaderError: "ERR_HTTP_HEADERS_SENT" }),
    );
    expect(endedAfterTurn).toEqual([true, true, true]);
    const byStatus = answers.sort((a, b) => a.status - b.status);
    expect(byStatus.map((a) => [a.status, JSON.parse(a.body)])).toEqual([
      [200, { n: 0, text: "ünïcode «x»" }],
      [201, { n: 1, text: "ünïcode «x»" }],
      [202, { n: 2, text: "ünïcode «x»" }],
    ]);
    for (const a of byStatus) expect(Number(a.length)).toBe(Buffer.byteLength(a.body));
  });

  it("still ends the others when one response's socket is gone before the turn ends", async () => {
    const port = await holdingServer(2, (held) => {
      for (const [, res] of held) writeJsonText(res, '{"ok":true}');
      held[0]![1].socket?.destroy();
    });
    const [first, second] = await Promise.allSettled([call(port), call(port)]);
    expect([first.status, second.status].sort()).toEqual(["fulfilled", "rejected"]);
    const answered = (first.status === "fulfilled" ? first : second) as PromiseFulfilledResult<{ body: string }>;
    expect(JSON.parse(answered.value.body)).toEqual({ ok: true });
  });

  it("answers HEAD at once, without a body", async () => {
    let endedInTurn: boolean | undefined;
    const port = await holdingServer(1, (held) => {
      const res = held[0]![1];
      writeJsonText(res, '{"ok":true}');
      endedInTurn = res.writableEnded;
    });
    const answer = await call(port, "HEAD");
    expect(endedInTurn).toBe(true);
    expect(answer).toEqual({ status: 200, body: "", length: "11" });
  });
});
