// The process survives anything a client sends; every refusal is a JSON 4xx naming the problem.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { json, post, startTestServer, type TestServer } from "./support/test-server.js";
import { SeededRandom } from "@agentkit/test-support/seeded-random";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ bodyLimit: "64kb" });
});
afterAll(async () => {
  await t.close();
});

async function raw(
  path: string,
  init: RequestInit,
): Promise<{ status: number; body: Record<string, unknown>; type: string }> {
  const res = await fetch(`${t.url}${path}`, init);
  const type = res.headers.get("content-type") ?? "";
  const text = await res.text();
  expect(type).toMatch(/^application\/json/);
  expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/); // no stack traces
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown>, type };
}

const jsonPost = (path: string, body: string, headers: Record<string, string> = {}) =>
  raw(path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });

describe("malformed and invalid bodies", () => {
  it("malformed JSON is 400 INVALID_JSON", async () => {
    const r = await jsonPost("/run", '{"appName": "A",');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("INVALID_JSON");
    expect(r.body.detail).toBe(r.body.error);
  });

  it("null, arrays and scalars as bodies are 400", async () => {
    for (const body of ["null", "[]", "[1,2]", '"text"', "42"]) {
      const r = await jsonPost("/run", body);
      expect(r.status).toBe(400);
    }
  });

  it("fields of the wrong type are 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ appName: 7, userId: "u", sessionId: "s" }, "appName"],
      [{ appName: "A", userId: "", sessionId: "s" }, "userId"],
      [{ appName: "A", userId: "u" }, "sessionId"],
      [{ appName: "A", userId: "u", sessionId: "s", newMessage: "hi" }, "newMessage"],
      [{ appName: "A", userId: "u", sessionId: "s", newMessage: { parts: "hi" } }, "newMessage"],
      [{ appName: "A", userId: "u", sessionId: "s", newMessage: { parts: ["x"] } }, "newMessage"],
      [{ appName: "A", userId: "u", sessionId: "s", stateDelta: [1] }, "stateDelta"],
      [{ appName: "A", userId: "u", sessionId: "s", streaming: "yes" }, "streaming"],
    ];
    for (const [body, field] of cases) {
      const r = await jsonPost("/run", JSON.stringify(body));
      expect(r.status).toBe(400);
      expect(String(r.body.error)).toContain(field);
    }
    const wrongType = await jsonPost("/run", JSON.stringify({ appName: 7, userId: "u", sessionId: "s" }));
    expect(wrongType.body.error).toBe("Invalid request body: appName: Invalid input: expected string, received number");
    const missing = await jsonPost("/run", JSON.stringify({ appName: "A", userId: "u" }));
    expect(missing.body.error).toBe("Invalid request body: sessionId: is required");
    const state = await jsonPost("/apps/A/users/u/sessions", JSON.stringify({ state: "x" }));
    expect(state.status).toBe(400);
    expect(String(state.body.error)).toContain("state");
    const events = await jsonPost("/apps/A/users/u/sessions", JSON.stringify({ events: {} }));
    expect(String(events.body.error)).toContain("events");
  });

  it("a body over the limit is 413 JSON", async () => {
    const big = JSON.stringify({
      appName: "A",
      userId: "u",
      sessionId: "s",
      newMessage: { parts: [{ text: "x".repeat(100_000) }] },
    });
    const r = await jsonPost("/run", big);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("deeply nested JSON, odd charsets and non-JSON bodies are 4xx", async () => {
    const deep = "[".repeat(20_000) + "]".repeat(20_000);
    expect((await jsonPost("/run", deep)).status).toBe(400);
    expect((await jsonPost("/run", "{}", { "Content-Type": "application/json; charset=latin9" })).status).toBe(415);
    const text = await raw("/run", { method: "POST", headers: { "Content-Type": "text/plain" }, body: "hello" });
    expect(text.status).toBe(400);
    expect(String(text.body.error)).toContain("appName");
    const invalidUtf8 = await raw("/run", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(invalidUtf8.status).toBe(400);
  });

  it("keys like __proto__ are data, not prototype pollution", async () => {
    const r = await jsonPost("/apps/A/users/u/sessions", '{"state": {"__proto__": {"polluted": true}, "ok": 1}}');
    expect(r.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("unknown routes and bad paths", () => {
  it("unknown routes and methods are JSON 404", async () => {
    for (const [method, path] of [
      ["GET", "/nope"],
      ["POST", "/list-apps"],
      ["PUT", "/run"],
      ["GET", "/apps/A/users/u"],
      ["GET", "/dev/apps/A/build_graph"],
      ["GET", "/debug/trace/session/s1"],
    ] as const) {
      const r = await raw(path, { method });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("NOT_FOUND");
    }
  });

  it("bad percent-encoding in a path is 400, not 500", async () => {
    const r = await raw("/apps/%E0%A4%A/users/u/sessions", { method: "GET" });
    expect(r.status).toBe(400);
  });

  it("raw garbage on the socket gets a 400 and the connection closes", async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(t.port, "127.0.0.1", () => socket.write("\x00\x01GARBAGE\r\n\r\n"));
      let data = "";
      socket.on("data", (c) => (data += c.toString()));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
  });
});

describe("fuzz: random bodies on every body-taking route", () => {
  const routes: [string, string][] = [
    ["POST", "/run"],
    ["POST", "/run_sse"],
    ["POST", "/api/reasoning_engine"],
    ["POST", "/apps/A/users/u/sessions"],
    ["POST", "/apps/A/users/u/sessions/fuzz_fixed"],
    ["PATCH", "/apps/A/users/u/sessions/fuzz_fixed"],
    ["PATCH", "/apps/A/users/u/memory"],
    ["POST", "/apps/A/users/u/sessions/fuzz_fixed/artifacts"],
  ];
  // Seeded, so failures reproduce.
  const random = new SeededRandom(12345);
  const rand = () => random.next();
  const pick = <T>(xs: readonly T[]): T => random.pick(xs);
  const keys = [
    "appName",
    "app_name",
    "userId",
    "sessionId",
    "newMessage",
    "new_message",
    "state",
    "stateDelta",
    "events",
    "filename",
    "artifact",
    "parts",
    "role",
    "text",
    "functionResponse",
    "inlineData",
    "data",
    "streaming",
    "__proto__",
    "constructor",
  ];
  function value(depth: number): unknown {
    const kind = Math.floor(rand() * (depth > 3 ? 5 : 8));
    switch (kind) {
      case 0:
        return null;
      case 1:
        return rand() > 0.5;
      case 2:
        return Math.floor(rand() * 1e6) - 5e5;
      case 3:
        return pick(["", "A", "u", "fuzz_fixed", "x".repeat(300), "é∂", "../../etc", "%00"]);
      case 4:
        return 1.5;
      case 5:
        return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: Math.floor(rand() * 5) }, () => [pick(keys), value(depth + 1)]));
    }
  }

  it("600 random bodies: never a 5xx, always JSON, the server stays up", async () => {
    await post(`${t.url}/apps/A/users/u/sessions/fuzz_fixed`);
    for (let i = 0; i < 600; i++) {
      const [method, path] = pick(routes);
      const body =
        i % 3 === 0
          ? { appName: "A", userId: "u", sessionId: "fuzz_fixed", newMessage: value(1), stateDelta: value(1) }
          : value(0);
      const res = await fetch(`${t.url}${path}`, {
        method,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body) ?? "null",
      });
      const text = await res.text();
      if (res.status >= 500) throw new Error(`${method} ${path} ${JSON.stringify(body)} -> ${res.status} ${text}`);
      if (res.headers.get("content-type")?.startsWith("application/json")) JSON.parse(text);
      else expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    }
    expect((await fetch(`${t.url}/list-apps`)).status).toBe(200);
  });

  it("nothing reached the error log (no unexpected failures)", () => {
    // The scripted model ran out during the fuzz (its script is empty): that is a model error
    // event, not a server failure.
    expect(t.logger.errors).toEqual([]);
  });
});

describe("JSON errors for a failing session store", () => {
  it("an unexpected store failure is a generic 500 without internals", async () => {
    const original = t.sessionService.listSessions.bind(t.sessionService);
    t.sessionService.listSessions = async () => {
      throw new Error("connection string postgres://admin:secret@db");
    };
    try {
      const r = await raw("/apps/A/users/u/sessions", { method: "GET" });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ error: "Internal server error", detail: "Internal server error", code: "INTERNAL" });
      expect(t.logger.errors.length).toBe(1);
    } finally {
      t.sessionService.listSessions = original;
      t.logger.errors.length = 0;
    }
    expect(Array.isArray(await json(await fetch(`${t.url}/apps/A/users/u/sessions`)))).toBe(true);
  });
});
