// `sendJson` stands in for Express's `res.status(s).json(body)` on every refusal and error
// answer (the lean hot path has no Express response): a real Express app answering the same
// error both ways must put the same status, headers and bytes on the wire.
import { request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import express from "express";
import { sendJson } from "../src/http/send-json.js";

let server: Server;
let port: number;

const BODY = { error: "Forbidden: «quoted» ünïcode", detail: "x", code: "FORBIDDEN", n: 1, list: [null, true] };

beforeAll(async () => {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.all("/express/:status", (req, res) => void res.status(Number(req.params.status)).json(BODY));
  app.all("/plain/:status", (req, res) => sendJson(res, Number(req.params.status), BODY));
  server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Status, raw headers (Date dropped: it changes with the clock) and body bytes. */
function fetchRaw(method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: string[]; body: string }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        const raw: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (res.rawHeaders[i]!.toLowerCase() !== "date") raw.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({ status: res.statusCode ?? 0, headers: raw, body });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("sendJson answers as Express's res.status(s).json(body)", () => {
  it.each([
    ["POST", 400, {}],
    ["POST", 403, {}],
    ["GET", 404, { "if-none-match": "*" }],
    ["HEAD", 401, {}],
    ["DELETE", 503, {}],
  ] as const)("%s %i", async (method, status, headers) => {
    const viaExpress = await fetchRaw(method, `/express/${status}`, headers);
    const plain = await fetchRaw(method, `/plain/${status}`, headers);
    expect(plain).toEqual(viaExpress);
    expect(plain.status).toBe(status);
    expect(plain.headers).toContain("Content-Type: application/json; charset=utf-8");
    if (method !== "HEAD") expect(JSON.parse(plain.body)).toEqual(BODY);
  });
});
