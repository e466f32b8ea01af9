// The lean JSON body reader (a Content-Length body of plain UTF-8 JSON) answers exactly as
// express.json does for the same bytes sent chunked (which express.json itself reads), and the
// JSON answers written without Express's `send` keep their headers, HEAD and conditional GETs.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startTestServer, type TestServer } from "./support/test-server.js";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({});
});
afterAll(async () => {
  await t.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over node:http: the body with a Content-Length, or chunked (no length). */
function send(
  method: string,
  path: string,
  options: { body?: Buffer; chunked?: boolean; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body && !options.chunked) headers["Content-Length"] = String(options.body.length);
    const req = request(`${t.url}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    if (options.body && options.chunked) {
      // Two writes without a length: Node sends Transfer-Encoding: chunked.
      const half = Math.floor(options.body.length / 2);
      req.write(options.body.subarray(0, half));
      req.write(options.body.subarray(half));
    }
    req.end(options.body && !options.chunked ? options.body : undefined);
  });
}

const JSON_TYPE = { "Content-Type": "application/json" };

/** Creates a session from `body` both ways (each with its own id) and returns both answers. */
async function createBothWays(body: Buffer, headers: Record<string, string> = JSON_TYPE): Promise<[Answer, Answer]> {
  const base = "/apps/A/users/u/sessions";
  const lean = await send("POST", `${base}`, { body, headers });
  const chunked = await send("POST", `${base}`, { body, headers, chunked: true });
  return [lean, chunked];
}

describe("the lean JSON body reader", () => {
  it("refuses what express.json refuses, with the same status and body", async () => {
    const bad: [string, Buffer, string][] = [
      ["malformed", Buffer.from('{"state":'), "INVALID_JSON"],
      ["a scalar (strict)", Buffer.from("42"), "INVALID_JSON"],
      ["whitespace only", Buffer.from(" \n\t "), "INVALID_JSON"],
      ["nested past maxJsonDepth", Buffer.from(`${"[".repeat(100)}${"]".repeat(100)}`), "JSON_TOO_DEEP"],
      ["a state that is not an object", Buffer.from('{"state":[1]}'), "INVALID_ARGUMENT"],
    ];
    for (const [what, body, code] of bad) {
      const [lean, chunked] = await createBothWays(body);
      expect({ what, status: lean.status, body: JSON.parse(lean.text) }).toEqual({
        what,
        status: chunked.status,
        body: JSON.parse(chunked.text),
      });
      expect(lean.status).toBe(400);
      if (code !== "INVALID_ARGUMENT") expect(JSON.parse(lean.text)).toMatchObject({ code });
    }
  });

  it("reads what express.json reads: an empty body, a leading BOM, UTF-8 text, a charset parameter", async () => {
    const good: [Buffer, Record<string, unknown>, Record<string, string>?][] = [
      [Buffer.alloc(0), {}],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"state":{"a":1}}')]), { a: 1 }],
      [Buffer.from('  {"state":{"city":"Zürich ☀"}}'), { city: "Zürich ☀" }],
      [Buffer.from('{"state":{"b":2}}'), { b: 2 }, { "Content-Type": "application/json; charset=utf-8" }],
    ];
    for (const [body, state, headers] of good) {
      const [lean, chunked] = await createBothWays(body, headers);
      expect([lean.status, chunked.status]).toEqual([200, 200]);
      expect(JSON.parse(lean.text).state).toEqual(state);
      expect(JSON.parse(chunked.text).state).toEqual(state);
    }
    const list = await send("GET", "/apps/A/users/u/sessions");
    // The refused bodies above stored nothing; each good one two sessions.
    expect(JSON.parse(list.text)).toHaveLength(2 * good.length);
  });

  it("a body that stops short is answered (or dropped) without harming the server", async () => {
    const logged = t.logger.errors.length;
    await new Promise<void>((resolve) => {
      const req = request(`${t.url}/apps/A/users/u/sessions`, {
        method: "POST",
        agent: false,
        headers: { ...JSON_TYPE, "Content-Length": "100" },
      });
      req.on("error", () => resolve());
      req.on("response", (res) => {
        res.resume();
        res.on("close", () => resolve());
      });
      req.write('{"state":', () => req.destroy());
    });
    const after = await send("POST", "/apps/A/users/u/sessions", { body: Buffer.from("{}"), headers: JSON_TYPE });
    expect(after.status).toBe(200);
    expect(t.logger.errors.length).toBe(logged);
  });
});

describe("JSON answers written in one pass", () => {
  it("carry the JSON type and the byte length of non-ASCII text; HEAD gets the headers alone", async () => {
    const created = await send("POST", "/apps/A/users/u/sessions", {
      body: Buffer.from('{"sessionId":"headers-1","state":{"greeting":"grüß dich 👋"}}'),
      headers: JSON_TYPE,
    });
    expect(created.status).toBe(200);
    const got = await send("GET", "/apps/A/users/u/sessions/headers-1");
    expect(got.status).toBe(200);
    expect(got.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(got.text)));
    expect(got.headers.etag).toBeUndefined();
    expect(JSON.parse(got.text).state).toEqual({ greeting: "grüß dich 👋" });
    const head = await send("HEAD", "/apps/A/users/u/sessions/headers-1");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers["content-length"]).toBe(got.headers["content-length"]);
    expect(head.headers["content-type"]).toBe("application/json; charset=utf-8");
  });

  it("a conditional GET answers as Express's send does (If-None-Match: * is fresh)", async () => {
    await send("POST", "/apps/A/users/u/sessions", { body: Buffer.from('{"sessionId":"cond-1"}'), headers: JSON_TYPE });
    const star = await send("GET", "/apps/A/users/u/sessions/cond-1", { headers: { "If-None-Match": "*" } });
    expect(star.status).toBe(304);
    expect(star.text).toBe("");
    const other = await send("GET", "/apps/A/users/u/sessions/cond-1", { headers: { "If-None-Match": '"abc"' } });
    expect(other.status).toBe(200);
    expect(JSON.parse(other.text).id).toBe("cond-1");
  });
});
