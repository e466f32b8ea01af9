// The hot requests of an agent flow (POST /run, /run_sse, create session) are served by the
// server's own request listener without Express (routes/hot-request-listener.ts). The same
// requests sent to a second, identically configured server that serves them through Express
// (its `app` in a plain node:http server) must get the same answers: status, the headers that
// matter and the body, for every success and refusal (auth, host, CORS, rate limit, body rules).
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { InMemoryArtifactService, InMemoryMemoryService, InMemorySessionService, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  apiKeyAuthenticator,
  createAgentServer,
  createStaticAgentLoader,
  type AgentServer,
  type AgentServerOptions,
  type RouteRule,
} from "../src/index.js";
import { recordingLogger } from "./support/test-server.js";

const KEYS = { alice: "alice-key-0123456789abcdef", carol: "carol-key-0123456789abcdef" } as const;
const ORIGIN = "http://localhost:4200";

interface Side {
  server: AgentServer;
  model: ScriptedModel;
  port: number;
  /** Requests that reached Express (`app.handle`): the lean path's fallbacks. */
  expressRequests: number;
  close(): Promise<void>;
}

function options(model: ScriptedModel, routes: readonly RouteRule[] = []): AgentServerOptions {
  return {
    loader: createStaticAgentLoader({ apps: { A: new LlmAgent({ name: "helper", model, instruction: "Be brief." }) } }),
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    logger: recordingLogger(),
    auth: {
      authenticate: apiKeyAuthenticator({
        entries: [
          { key: KEYS.alice, userId: "alice" },
          { key: KEYS.carol, userId: "carol" },
        ],
      }),
      routes,
    },
    cors: { allowOrigins: [ORIGIN] },
    bodyLimit: 2048,
    limits: { runsPerUserPerMinute: 2, maxJsonDepth: 8 },
  };
}

/** Counts the requests Express handles (the real app; its `handle` is what `app(req, res)` calls). */
function countExpress(side: Side): void {
  // `handle` is not in Express's types; it is what the app function calls for each request.
  const app = side.server.app as unknown as { handle: (...args: unknown[]) => unknown };
  const handle = app.handle.bind(app);
  app.handle = (...args) => {
    side.expressRequests++;
    return handle(...args);
  };
}

/** The server as `listen` serves it: the hot requests on the lean path. */
async function leanSide(routes: readonly RouteRule[] = []): Promise<Side> {
  const model = new ScriptedModel();
  const server = createAgentServer(options(model, routes));
  const { port } = await server.listen({ host: "127.0.0.1", port: 0 });
  const side: Side = { server, model, port, expressRequests: 0, close: () => server.close() };
  countExpress(side);
  return side;
}

/** The same server's Express app in a plain node:http server: every request through Express. */
async function expressSide(): Promise<Side> {
  const model = new ScriptedModel();
  const server = createAgentServer(options(model));
  const http: Server = createServer(server.app);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  const side: Side = {
    server,
    model,
    port,
    expressRequests: 0,
    close: async () => {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await server.close();
    },
  };
  countExpress(side);
  return side;
}

interface Answer {
  status: number;
  /** Whether Content-Length is the body's length (its value differs with the masked values). */
  lengthMatches: boolean | undefined;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/** The headers whose values the two paths must agree on. */
const COMPARED = [
  "content-type",
  "www-authenticate",
  "retry-after",
  "connection",
  "vary",
  "access-control-allow-origin",
  "access-control-allow-credentials",
  "access-control-expose-headers",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "cache-control",
  "etag",
  "x-powered-by",
] as const;

interface Req {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json) or raw text. */
  body?: unknown;
  raw?: string;
  /** Send the body chunked (no Content-Length). */
  chunked?: boolean;
}

/** One request over a fresh connection, with any headers (Host included, which fetch forbids). */
function send(port: number, req: Req): Promise<Answer> {
  const text = req.raw ?? (req.body === undefined ? "" : JSON.stringify(req.body));
  // Host without the port: the same value on both sides (the guard reads its name).
  const headers: Record<string, string> = {
    host: "127.0.0.1",
    ...(req.body !== undefined ? { "content-type": "application/json" } : {}),
    ...(req.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(Buffer.byteLength(text)) }),
    ...req.headers,
  };
  return new Promise((resolve, reject) => {
    const out = request(
      { host: "127.0.0.1", port, method: req.method ?? "POST", path: req.path, headers, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          const length = res.headers["content-length"];
          resolve({
            status: res.statusCode ?? 0,
            lengthMatches: length === undefined ? undefined : Number(length) === Buffer.byteLength(body),
            headers: pick(res.headers),
            body: parse(body),
          });
        });
      },
    );
    out.on("error", reject);
    out.end(text);
  });
}

function pick(headers: IncomingHttpHeaders): Record<string, string | undefined> {
  const picked: Record<string, string | undefined> = {};
  for (const name of COMPARED) {
    const value = headers[name];
    picked[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return picked;
}

/** JSON bodies parsed, with the values that differ on every run (ids, times) masked; SSE frames each parsed. */
function parse(text: string): unknown {
  if (text.startsWith("data: "))
    return text
      .split("\n\n")
      .filter(Boolean)
      .map((frame) => mask(JSON.parse(frame.slice("data: ".length))));
  try {
    return mask(JSON.parse(text));
  } catch {
    return text;
  }
}

const VOLATILE = new Set(["id", "invocationId", "timestamp", "lastUpdateTime", "durationMs"]);

function mask(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(mask);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VOLATILE.has(k) ? "<masked>" : mask(v)]));
}

let lean: Side;
let express: Side;

beforeAll(async () => {
  [lean, express] = await Promise.all([leanSide(), expressSide()]);
});
afterAll(async () => {
  await Promise.all([lean.close(), express.close()]);
});

const alice = { authorization: `Bearer ${KEYS.alice}` };
const carol = { authorization: `Bearer ${KEYS.carol}` };

/**
 * Sends `req` to both sides and checks they answer alike; `viaLean` says whether the lean side
 * must serve it without Express (true) or hand it to Express (false).
 */
async function same(req: Req, viaLean: boolean): Promise<Answer> {
  const before = lean.expressRequests;
  const [a, b] = [await send(lean.port, req), await send(express.port, req)];
  expect({ path: req.path, ...a }).toEqual({ path: req.path, ...b });
  expect(lean.expressRequests - before).toBe(viaLean ? 0 : 1);
  return a;
}

const userMessage = (text: string) => ({ role: "user", parts: [{ text }] });
const runBody = (userId: string, sessionId: string, extra: Record<string, unknown> = {}) => ({
  appName: "A",
  userId,
  sessionId,
  newMessage: userMessage("hi"),
  ...extra,
});

describe("the lean path answers as Express does", () => {
  it("successes: create session, /run and /run_sse", async () => {
    const created = await same(
      { path: "/apps/A/users/alice/sessions", headers: alice, body: { sessionId: "s1", state: { k: "v" } } },
      true,
    );
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ appName: "A", userId: "alice", state: { k: "v" } });

    for (const side of [lean, express]) side.model.push(ScriptedModel.text("hello"));
    const run = await same({ path: "/run", headers: alice, body: runBody("alice", "s1") }, true);
    expect(run.status).toBe(200);
    expect(run.body).toEqual([expect.objectContaining({ content: { role: "model", parts: [{ text: "hello" }] } })]);

    for (const side of [lean, express]) side.model.push(ScriptedModel.text("streamed"));
    const sse = await same({ path: "/run_sse", headers: alice, body: runBody("alice", "s1") }, true);
    expect(sse.status).toBe(200);
    expect(sse.headers["content-type"]).toBe("text/event-stream");
    expect(JSON.stringify(sse.body)).toContain("streamed");
  });

  it("body refusals: bad JSON, too deep, too large, wrong type, bad charset, chunked", async () => {
    const malformed = await same(
      { path: "/run", headers: { ...alice, "content-type": "application/json" }, raw: '{"appName":' },
      true,
    );
    expect(malformed.body).toMatchObject({ code: "INVALID_JSON" });
    const deep = await same({ path: "/apps/A/users/alice/sessions", headers: alice, body: { state: nest(12) } }, true);
    expect(deep.body).toMatchObject({ code: "JSON_TOO_DEEP" });
    const large = await same({ path: "/run", headers: alice, body: { pad: "x".repeat(4096) } }, false);
    expect(large.status).toBe(413);
    const wrongType = await same(
      {
        path: "/run",
        headers: { ...alice, "content-type": "text/plain" },
        raw: JSON.stringify(runBody("alice", "s1")),
      },
      false,
    );
    expect(wrongType.status).toBe(400);
    const charset = await same(
      { path: "/run", headers: { ...alice, "content-type": "application/json; charset=latin1" }, raw: "{}" },
      false,
    );
    expect(charset.status).toBe(415);
    const chunked = await same(
      { path: "/apps/A/users/alice/sessions", headers: alice, body: { sessionId: "s2" }, chunked: true },
      false,
    );
    expect(chunked.status).toBe(200);
    const schema = await same({ path: "/run", headers: alice, body: { appName: "A" } }, true);
    expect(schema.status).toBe(400);
  });

  it("no media type: the body is left unparsed on both paths (a POST with no body, as fetch sends it)", async () => {
    const empty = await same({ path: "/apps/A/users/alice/sessions", headers: alice }, true);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ appName: "A", userId: "alice", state: {} });
    // A JSON text without its type is not read: the run has no body, a 400 either way.
    const untyped = await same({ path: "/run", headers: alice, raw: JSON.stringify(runBody("alice", "s1")) }, true);
    expect(untyped.status).toBe(400);
    // With a content coding, or chunked, the lean path leaves it to Express.
    const coded = await same(
      { path: "/apps/A/users/alice/sessions", headers: { ...alice, "content-encoding": "gzip" }, raw: "" },
      false,
    );
    expect(coded.status).toBe(200);
    const chunked = await same({ path: "/apps/A/users/alice/sessions", headers: alice, raw: "", chunked: true }, false);
    expect(chunked.status).toBe(200);
  });

  it("unknown app and session, bad path parameters", async () => {
    const app = await same(
      { path: "/run", headers: alice, body: { ...runBody("alice", "s1"), appName: "nope" } },
      true,
    );
    expect(app.status).toBe(404);
    expect(app.body).toMatchObject({ code: "APP_NOT_FOUND" });
    const malformed = await same({ path: "/apps/A/users/%E0%A4%A/sessions", headers: alice, body: {} }, true);
    expect(malformed.status).toBe(400);
    // The user in the path is not the principal's: refused before the route checks the key.
    const key = await same({ path: "/apps/A/users/a%0Ab/sessions", headers: alice, body: {} }, true);
    expect(key.status).toBe(403);
  });

  it("authentication and authorization", async () => {
    const none = await same({ path: "/run", body: runBody("alice", "s1") }, true);
    expect(none.status).toBe(401);
    expect(none.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer /);
    const wrongKey = await same(
      { path: "/apps/A/users/alice/sessions", headers: { authorization: "Bearer not-a-key-0123456789" }, body: {} },
      true,
    );
    expect(wrongKey.status).toBe(401);
    const otherUser = await same({ path: "/run", headers: alice, body: runBody("bob", "s1") }, true);
    expect(otherUser.status).toBe(403);
    const otherPath = await same({ path: "/apps/A/users/bob/sessions", headers: alice, body: {} }, true);
    expect(otherPath.status).toBe(403);
  });

  it("host and origin guard", async () => {
    const host = await same({ path: "/run", headers: { ...alice, host: "evil.example" }, body: {} }, true);
    expect(host.status).toBe(403);
    expect(host.body).toMatchObject({ code: "FORBIDDEN" });
    const origin = await same(
      { path: "/run", headers: { ...alice, origin: "http://evil.example" }, body: runBody("alice", "s1") },
      true,
    );
    expect(origin.status).toBe(403);
  });

  it("CORS: a simple request on the lean path, the preflight through Express", async () => {
    const simple = await same(
      { path: "/apps/A/users/alice/sessions", headers: { ...alice, origin: ORIGIN }, body: {} },
      true,
    );
    expect(simple.status).toBe(200);
    expect(simple.headers["access-control-allow-origin"]).toBe(ORIGIN);
    const preflight = await same(
      {
        method: "OPTIONS",
        path: "/run",
        headers: { origin: ORIGIN, "access-control-request-method": "POST" },
      },
      false,
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-methods"]).toContain("POST");
  });

  it("conditional requests go to Express", async () => {
    const conditional = await same(
      { path: "/apps/A/users/alice/sessions", headers: { ...alice, "if-none-match": "*" }, body: { sessionId: "s3" } },
      false,
    );
    expect(conditional.status).toBe(200);
  });

  it("the rate limit: the same 429 once a user's runs are spent", async () => {
    for (let i = 0; i < 2; i++) {
      const spent = await same({ path: "/run", headers: carol, body: runBody("carol", "missing") }, true);
      expect(spent.status).toBe(404);
    }
    const before = lean.expressRequests;
    const [a, b] = [
      await send(lean.port, { path: "/run", headers: carol, body: runBody("carol", "missing") }),
      await send(express.port, { path: "/run", headers: carol, body: runBody("carol", "missing") }),
    ];
    expect(lean.expressRequests).toBe(before);
    // Retry-After counts down with the clock: both present and within the minute's refill.
    const { "retry-after": retryA, ...restA } = a.headers;
    const { "retry-after": retryB, ...restB } = b.headers;
    expect({ ...a, headers: restA }).toEqual({ ...b, headers: restB });
    expect(a.status).toBe(429);
    for (const value of [retryA, retryB]) expect(Number(value)).toBeGreaterThanOrEqual(1);
    for (const value of [retryA, retryB]) expect(Number(value)).toBeLessThanOrEqual(60);
  });
});

describe("custom route rules", () => {
  it("a rule's userOf may use Express's request helpers on the lean path", async () => {
    // The caller's rules are written against Express's request (`req.get`): the lean path gives them its prototype.
    const side = await leanSide([
      { methods: ["POST"], paths: ["/run"], access: "own-user", userOf: (req) => req.get("x-acting-user") },
    ]);
    try {
      const refused = await send(side.port, {
        path: "/run",
        headers: { ...alice, "x-acting-user": "bob" },
        body: runBody("alice", "s1"),
      });
      expect(refused.status).toBe(403);
      const passed = await send(side.port, {
        path: "/run",
        headers: { ...alice, "x-acting-user": "alice" },
        body: runBody("alice", "missing"),
      });
      expect(passed.status).toBe(404);
      expect(side.expressRequests).toBe(0);
    } finally {
      await side.close();
    }
  });
});

function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}
