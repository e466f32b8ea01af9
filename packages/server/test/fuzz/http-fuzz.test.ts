// Thousands of malformed requests across every route, WebSocket frames on /run_live, truncated
// SSE clients and concurrent runs, against the real server on persistent and in-memory
// backends. Nothing a client sends may get a 5xx, hang, leak a stack trace or a file system
// path, or stop the server. Seeded: AGENTKIT_FUZZ_SEED=<seed> replays a failing run.
import { randomInt } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import WebSocket from "ws";
import { statusForErrorCode } from "../../src/errors/status-for-error.js";
import { FuzzInputs } from "./fuzz-inputs.js";
import { startFuzzServer, type FuzzServer } from "./fuzz-server.js";
import { SeededRandom } from "@agentkit/test-support/seeded-random";

const SEED = process.env.AGENTKIT_FUZZ_SEED ? Number(process.env.AGENTKIT_FUZZ_SEED) : randomInt(2 ** 31);
const REQUESTS_PER_SERVER = Number(process.env.AGENTKIT_FUZZ_REQUESTS ?? 1500);
const CONCURRENCY = 8;
/** Every request must be answered within this (the slowest legitimate one takes milliseconds). */
const ANSWER_BOUND_MS = 15_000;
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url)).replace(/\/$/, "");
/** The folder that holds the checkout (its parent directory): no answer may name it either. */
const CHECKOUT_PARENT = `${REPO_ROOT.slice(0, REPO_ROOT.lastIndexOf("/"))}/`;

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Destroy the response after its first chunk (a client that leaves mid-stream). */
  truncate?: boolean;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What went wrong, with the seed and the request, so it can be replayed. */
const failures: string[] = [];
/** `<status> <method> <route shape>` → count, printed with AGENTKIT_FUZZ_VERBOSE=1 (to see what the fuzz reaches). */
const seen = new Map<string, number>();

function fail(server: FuzzServer, what: string, sent: Sent | string, detail = ""): void {
  const request =
    typeof sent === "string"
      ? sent
      : `${sent.method} ${sent.path.slice(0, 300)} ${JSON.stringify(sent.headers)} ` +
        `body=${JSON.stringify(String(sent.body ?? "").slice(0, 300))}`;
  failures.push(`[seed ${SEED}] ${what}: ${request}${detail ? `\n    ${detail.slice(0, 600)}` : ""}`);
  void server;
}

/** Stack frames, absolute paths of this machine: nothing of it may reach a client. */
function leaks(server: FuzzServer, text: string): string | undefined {
  if (/\n\s+at /.test(text) || /\bat [^\s()]+ \([^()]*:\d+:\d+\)/.test(text)) return "a stack trace";
  for (const path of [...server.secretPaths, REPO_ROOT, CHECKOUT_PARENT, "node_modules", "file:///"]) {
    if (text.includes(path)) return `the path ${path}`;
  }
  return undefined;
}

function check(server: FuzzServer, sent: Sent, answer: Answer): void {
  const first = sent.path.split("?")[0]!.split("/")[1] ?? "";
  const known = ["apps", "run", "run_sse", "api", "list-apps", "dev", "dev-ui", "debug", "health", "version", ""];
  const route = known.includes(first) ? `/${first}` : "/(other)";
  const shape = `${answer.status} ${sent.method} ${route}${sent.path.includes("/artifacts") ? " (artifacts)" : ""}`;
  seen.set(shape, (seen.get(shape) ?? 0) + 1);
  if (answer.status >= 500) fail(server, `HTTP ${answer.status}`, sent, answer.body);
  const headerText = Object.entries(answer.headers)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join("\n");
  const leak = leaks(server, answer.body) ?? leaks(server, headerText);
  if (leak) fail(server, `response carries ${leak}`, sent, answer.body);
  // An error after an SSE stream started is a frame of a 200 response: its code must be a 4xx one.
  if (answer.status < 400) {
    for (const match of answer.body.matchAll(/"error":"[^"]*","code":"([A-Z0-9_]+)"/g)) {
      const status = match[1] === "INTERNAL" ? 500 : (statusForErrorCode(match[1]!) ?? 400);
      if (status >= 500) fail(server, `error frame ${match[1]} (${status})`, sent, answer.body);
    }
  }
}

/** Sends one request with node:http (which lets odd paths through); undefined if the client itself refuses it. */
function send(server: FuzzServer, agent: Agent, sent: Sent): Promise<Answer | undefined> {
  return new Promise((resolve) => {
    let req: ReturnType<typeof httpRequest>;
    const timer = setTimeout(() => {
      fail(server, `no answer within ${ANSWER_BOUND_MS} ms`, sent);
      req?.destroy();
      resolve(undefined);
    }, ANSWER_BOUND_MS);
    const done = (answer: Answer | undefined) => {
      clearTimeout(timer);
      resolve(answer);
    };
    try {
      req = httpRequest({
        host: "127.0.0.1",
        port: server.port,
        method: sent.method,
        path: sent.path,
        headers: sent.headers,
        agent,
      });
    } catch {
      return done(undefined); // a path or header node:http will not send
    }
    req.on("error", () => done(undefined));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        if (sent.truncate) res.destroy();
      });
      const finish = () =>
        done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.on("end", finish);
      res.on("close", finish);
      res.on("error", () => {});
    });
    if (sent.body !== undefined) req.end(sent.body);
    else req.end();
  });
}

/** One random request for one of the server's routes (or none of them). */
function randomRequest(rng: SeededRandom, inputs: FuzzInputs): Sent {
  const seg = (value: string) => inputs.segment(value);
  // Most requests name a real app, user and session, so the fuzz reaches the services behind
  // the routes; the others fuzz those names too.
  const real = rng.chance(0.6) && inputs.knownSessions.length > 0;
  const a = () => (real ? inputs.apps.text : seg(inputs.app()));
  const u = () => (real ? "fuzz-user" : seg(inputs.user()));
  const s = () => (real ? encodeURIComponent(rng.pick(inputs.knownSessions)) : seg(inputs.id()));
  const session = () => `/apps/${a()}/users/${u()}/sessions/${s()}`;
  const artifacts = () => `${session()}/artifacts`;
  // Artifact names: odd ones, and long ones near the 255-byte limits (of core, and once encoded).
  const name = () =>
    rng.chance(0.2)
      ? seg(inputs.long(rng.between(40, 300)))
      : Array.from({ length: rng.between(1, 3) }, () => seg(inputs.id())).join("/");
  const version = () => seg(rng.pick(["0", "1", "latest", "-1", "1.5", "99999999999999999999", "1e3", inputs.id()]));
  const query = () =>
    rng.pick([
      "",
      `?afterTimestamp=${seg(inputs.id())}`,
      `?numRecentEvents=${rng.pick(["0", "1", "-1", "1.5", "x"])}&after_timestamp=${rng.pick(["1", "1e12", "NaN"])}`,
      `?version=${version()}`,
      `?detailed=true`,
      `?${seg(inputs.id())}=${seg(inputs.id())}&a=1&a=2`,
    ]);
  const routes: (() => [string, string, Parameters<FuzzInputs["body"]>[0]?])[] = [
    () => ["GET", `/list-apps${query()}`],
    () => ["GET", rng.pick(["/version", "/health", "/", "/dev-ui", "/dev-ui/", "/dev-ui/config", "/dev-ui/main.js"])],
    () => ["GET", `/dev-ui/assets/config/runtime-config.json`],
    () => ["GET", `/dev-ui/${name()}`],
    () => ["GET", `/apps/${a()}/app-info`],
    () => ["POST", `/apps/${a()}/users/${u()}/sessions`, "session"],
    () => ["POST", session(), "session"],
    () => ["GET", `/apps/${a()}/users/${u()}/sessions`],
    () => ["GET", `${session()}${query()}`],
    () => ["DELETE", session()],
    () => ["PATCH", session(), "patch"],
    () => ["POST", "/run", "run"],
    () => ["POST", "/run_sse", "run"],
    () => ["POST", "/api/reasoning_engine", "run"],
    () => ["GET", artifacts()],
    () => ["POST", artifacts(), "artifact"],
    () => ["GET", `${artifacts()}/${name()}${query()}`],
    () => ["GET", `${artifacts()}/${name()}/versions`],
    () => ["GET", `${artifacts()}/${name()}/versions/metadata`],
    () => ["GET", `${artifacts()}/${name()}/versions/${version()}`],
    () => ["GET", `${artifacts()}/${name()}/versions/${version()}/metadata`],
    () => ["DELETE", `${artifacts()}/${name()}`],
    () => ["PATCH", `/apps/${a()}/users/${u()}/memory`, "memory"],
    () => [
      "GET",
      rng.pick([`/debug/trace/${s()}`, `/debug/trace/session/${s()}`, `/dev/apps/${a()}/debug/trace/session/${s()}`]),
    ],
    () => ["GET", `${session()}/events/${s()}/graph`],
    () => [
      "GET",
      rng.pick([
        `/dev/apps/${a()}/build_graph`,
        `/dev/build_graph/${a()}`,
        `/dev/apps/${a()}/graph`,
        `/dev/${a()}/graph`,
      ]),
    ],
    () => ["GET", `/dev/apps/${a()}/build_graph_image${query()}`],
    () => [rng.pick(["GET", "POST"]), `/apps/${a()}/eval_sets`, "eval"],
    () => [rng.pick(["GET", "POST", "DELETE"]), `/apps/${a()}/eval_sets/${s()}`, "eval"],
    () => [rng.pick(["GET", "PUT", "DELETE"]), `/apps/${a()}/eval-sets/${s()}/eval-cases/${s()}`, "eval"],
    () => ["POST", `/apps/${a()}/eval_sets/${s()}/${rng.pick(["add_session", "run_eval", "run"])}`, "eval"],
    () => ["GET", `/apps/${a()}/${rng.pick(["eval_results", "metrics-info"])}${rng.chance(0.5) ? `/${s()}` : ""}`],
    () => [rng.pick(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "PROPFIND"]), `/${name()}`, "any"],
  ];
  const [method, path, kind] = rng.pick(routes)();
  const headers: Record<string, string> = {
    Host: rng.chance(0.97) ? "127.0.0.1" : rng.pick(["evil.example", "localhost:1", "[::1]"]),
  };
  if (rng.chance(0.05)) headers.Origin = rng.pick(["http://evil.example", "null", "http://127.0.0.1:1"]);
  if (rng.chance(0.02)) headers["X-Large"] = "x".repeat(rng.between(10_000, 40_000));
  const sent: Sent = { method, path, headers };
  if (kind !== undefined && method !== "GET" && method !== "HEAD") {
    const { body, contentType } = inputs.encode(inputs.body(kind, real), real);
    sent.body = body;
    if (contentType) headers["Content-Type"] = contentType;
  }
  if (path === "/run_sse" && rng.chance(0.3)) sent.truncate = true;
  return sent;
}

/** Makes a few real sessions so that requests also reach existing ones. */
async function seedSessions(server: FuzzServer, agent: Agent, inputs: FuzzInputs): Promise<void> {
  for (const id of ["s-1", "s-2", "__proto__", "constructor", "Zoë 東京 🙂", "a/b"]) {
    for (const app of [server.apps.text, server.apps.live]) {
      const sent: Sent = {
        method: "POST",
        path: `/apps/${app}/users/fuzz-user/sessions`,
        headers: { Host: "127.0.0.1", "Content-Type": "application/json" },
        body: JSON.stringify({ sessionId: id }),
      };
      const answer = await send(server, agent, sent);
      if (answer?.status !== 200 && answer?.status !== 409)
        fail(server, `could not create session ${id}`, sent, answer?.body);
    }
    inputs.knownSessions.push(id);
  }
}

/** Several runs (JSON and SSE, some cut off) and a delete on one session at the same time. */
async function concurrentRuns(server: FuzzServer, agent: Agent, rng: SeededRandom): Promise<void> {
  const base = { appName: server.apps.text, userId: "fuzz-user", sessionId: "s-1" };
  const runs: Sent[] = Array.from({ length: 10 }, (_, i) => ({
    method: "POST",
    path: rng.pick(["/run", "/run_sse"]),
    headers: { Host: "127.0.0.1", "Content-Type": "application/json" },
    body: JSON.stringify({
      ...base,
      newMessage: { role: "user", parts: [{ text: i % 3 ? "hi" : "save note.txt" }] },
      streaming: i % 2 === 0,
    }),
    truncate: i % 4 === 0,
  }));
  runs.push({
    method: "DELETE",
    path: `/apps/${base.appName}/users/fuzz-user/sessions/s-2`,
    headers: { Host: "127.0.0.1" },
  });
  const answers = await Promise.all(runs.map((sent) => send(server, agent, sent)));
  for (const [i, answer] of answers.entries()) if (answer) check(server, runs[i]!, answer);
}

/** Raw connections: truncated bodies, garbage request lines, oversized headers. */
async function rawAbuse(server: FuzzServer, rng: SeededRandom): Promise<void> {
  const payloads = [
    'POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"appName":',
    "GARBAGE\r\n\r\n",
    "GET / HTTP/9.9\r\n\r\n",
    `GET /${"a".repeat(70_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    "POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
    "POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}",
    "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX: \u0000\r\n\r\n",
  ];
  await Promise.all(
    payloads.map(
      (payload) =>
        new Promise<void>((resolve) => {
          const socket = connect({ host: "127.0.0.1", port: server.port });
          const chunks: Buffer[] = [];
          socket.on("data", (c: Buffer) => chunks.push(c));
          socket.on("error", () => {});
          socket.on("close", () => {
            const text = Buffer.concat(chunks).toString("latin1");
            const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
            if (status && Number(status) >= 500)
              fail(server, `HTTP ${status} on a raw connection`, payload.slice(0, 120), text);
            const leak = leaks(server, text);
            if (leak) fail(server, `raw answer carries ${leak}`, payload.slice(0, 120), text);
            resolve();
          });
          socket.write(payload, "latin1");
          // Leave half of them hanging mid-request: the server must still answer the rest.
          if (rng.chance(0.5)) socket.end();
          else setTimeout(() => socket.destroy(), 50);
        }),
    ),
  );
}

/**
 * Bad WebSocket frames on /run_live: binary, invalid JSON, huge, wrong types; the socket never takes the server down.
 */
async function liveAbuse(server: FuzzServer, inputs: FuzzInputs, rng: SeededRandom): Promise<void> {
  const wsUrl = server.url.replace("http", "ws");
  const frames = (): (string | Buffer)[] => [
    Buffer.from([0, 1, 2, 255]),
    "{not json",
    "null",
    "[]",
    "42",
    JSON.stringify({ content: 5 }),
    JSON.stringify({ content: { parts: "x" } }),
    JSON.stringify({ blob: { data: 7 } }),
    JSON.stringify({ blob: { mime_type: "audio/pcm", data: "!!!" } }),
    JSON.stringify({ content: { role: "user", parts: [{ text: "hello" }] } }),
    JSON.stringify({ close: "yes" }),
    JSON.stringify(inputs.value()),
    "x".repeat(100 * 1024), // over maxFrameBytes: 1009
    JSON.stringify({ close: true }),
    JSON.stringify({ content: { role: "user", parts: [{ text: "after close" }] } }),
  ];
  const queries = [
    `app_name=${server.apps.live}&user_id=fuzz-user&session_id=s-1`,
    `app_name=${server.apps.live}&user_id=fuzz-user&session_id=${encodeURIComponent("Zoë 東京 🙂")}`,
    `app_name=${server.apps.live}&user_id=fuzz-user&session_id=${encodeURIComponent(inputs.long(400))}`,
    `app_name=no_such_app&user_id=u&session_id=s`,
    `app_name=${server.apps.live}&user_id=%00&session_id=s`,
    `app_name=${server.apps.live}`,
    `modalities=VIDEO&app_name=${server.apps.live}&user_id=fuzz-user&session_id=s-1`,
  ];
  for (let i = 0; i < 14; i++) {
    const query = rng.pick(queries);
    await new Promise<void>((resolve) => {
      const ws = new WebSocket(`${wsUrl}/run_live?${query}`);
      const timer = setTimeout(() => {
        fail(server, "a live socket did not close", query);
        ws.terminate();
      }, ANSWER_BOUND_MS);
      ws.on("message", (data) => {
        const text = data.toString();
        const leak = leaks(server, text);
        if (leak) fail(server, `live frame carries ${leak}`, query, text);
      });
      ws.on("unexpected-response", (_req, res) => {
        if ((res.statusCode ?? 0) >= 500) fail(server, `live upgrade answered ${res.statusCode}`, query);
        res.resume();
      });
      ws.on("error", () => {});
      ws.on("close", (code, reason) => {
        clearTimeout(timer);
        const leak = leaks(server, reason.toString());
        if (leak) fail(server, `live close reason carries ${leak}`, query, reason.toString());
        if (code === 1011) fail(server, "live socket closed with 1011 (internal error)", query, reason.toString());
        resolve();
      });
      ws.on("open", () => {
        const picked = frames().filter(() => rng.chance(0.5));
        for (const frame of picked) if (ws.readyState === ws.OPEN) ws.send(frame, { binary: Buffer.isBuffer(frame) });
        // Close from the client side after the frames (or leave it to the server after `close: true`).
        setTimeout(() => ws.readyState === ws.OPEN && ws.close(), 20);
      });
    });
  }
}

async function fuzz(server: FuzzServer, rng: SeededRandom): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const inputs = new FuzzInputs(rng.fork(), server.apps);
  let sentCount = 0;
  try {
    await seedSessions(server, agent, inputs);
    const workers = Array.from({ length: CONCURRENCY }, async (_, w) => {
      const local = rng.fork();
      const localInputs = new FuzzInputs(local, server.apps);
      localInputs.knownSessions.push(...inputs.knownSessions);
      for (let i = w; i < REQUESTS_PER_SERVER; i += CONCURRENCY) {
        const sent = randomRequest(local, localInputs);
        const answer = await send(server, agent, sent);
        if (answer) {
          sentCount += 1;
          check(server, sent, answer);
        }
      }
    });
    await Promise.all([...workers, concurrentRuns(server, agent, rng.fork()), rawAbuse(server, rng.fork())]);
    await liveAbuse(server, inputs, rng.fork());
    // Still alive and still serving.
    const health = await send(server, agent, { method: "GET", path: "/health", headers: { Host: "127.0.0.1" } });
    if (health?.status !== 200) fail(server, "the server stopped answering /health", "GET /health");
  } finally {
    agent.destroy();
  }
  return sentCount;
}

describe.each(["persistent", "memory"] as const)("fuzz (%s backends)", (backends) => {
  let server: FuzzServer;

  beforeAll(async () => {
    server = await startFuzzServer(backends);
  });
  afterAll(async () => {
    await server.close();
  });

  it(`answers ${REQUESTS_PER_SERVER} malformed requests, bad frames and cut-off clients with no 5xx, leak or hang`, async () => {
    failures.length = 0;
    const rng = new SeededRandom(SEED + (backends === "memory" ? 1 : 0));
    const answered = await fuzz(server, rng);
    if (process.env.AGENTKIT_FUZZ_VERBOSE) {
      console.log(
        [...seen]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, n]) => `${n}\t${k}`)
          .join("\n"),
      );
    }
    if (failures.length > 0) {
      console.log(`fuzz seed ${SEED}: replay with AGENTKIT_FUZZ_SEED=${SEED}\n${failures.slice(0, 40).join("\n")}`);
    }
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(REQUESTS_PER_SERVER * 0.8);
    // Nothing a client did is still held once everything ended.
    expect(server.server.stats().bodyBytesInFlight).toBe(0);
    expect(server.server.stats().live.queuedFrames).toBe(0);
  });
});
