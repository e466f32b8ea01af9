// Every route of the server, enumerated from Express's own router stack, against the access
// rule it must get when auth is on: a route missing from TABLE fails the test, so a new route
// cannot ship without a decision. Then, for every route: no credentials is a 401; one user's
// key on another user's data is a 403 (read, list, patch, delete, run); admin-only routes are
// 403 for plain users; the admin key passes everywhere; a user passes on its own data.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ScriptedModel } from "@agentkit/core/testing";
import { bearer, KEYS, startAuthServer, type AuthTestServer } from "./auth-server.js";
import { artifacts, enumerateRoutes, TABLE, type Access, type Layer } from "./route-table.js";

let t: AuthTestServer;
let routes: string[];
let bobEventId: string;
let aliceEventId: string;
const MESSAGE = { role: "user", parts: [{ text: "hi" }] };

async function call(method: string, path: string, key: string | undefined, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { ...(key ? bearer(key) : {}) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (path === "/config/telemetry") headers["X-ADK-Telemetry-Request"] = "true";
  return fetch(`${t.url}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
}

/** A concrete request for a table row, acting on `user`'s data. */
function requestFor(row: string, user: string): { method: string; path: string; body?: unknown } {
  const [verb, pattern] = row.split(" ") as [string, string];
  const values: Record<string, string> = {
    app: "A",
    user,
    userId: user,
    sid: "s1",
    sessionId: "s1",
    eventId: user === "alice" ? aliceEventId : bobEventId,
    name: "note.txt",
    v: "0",
    evalSetId: "set1",
    evalCaseId: "c1",
    resultId: "r1",
  };
  const path = pattern.replace(/[:*](\w+)/g, (_, name: string) => values[name] ?? "x");
  const method = verb === "USE" ? "GET" : verb;
  const run = { appName: "A", userId: user, sessionId: "s1", newMessage: MESSAGE };
  const bodies: Record<string, unknown> = {
    "PATCH /apps/:app/users/:user/sessions/:sid": { stateDelta: { touched: true } },
    [`POST ${artifacts}`]: { filename: "other.txt", artifact: { text: "x" } },
    "PATCH /apps/:app/users/:user/memory": { sessionId: "s1" },
    "POST /run": run,
    "POST /run_sse": run,
    "POST /api/reasoning_engine": run,
    "POST /config/telemetry": { telemetry: false },
  };
  const body = bodies[row] ?? (method === "GET" || method === "DELETE" ? undefined : {});
  return { method, path: verb === "USE" ? `${path}/index.html` : path, ...(body !== undefined ? { body } : {}) };
}

const rows = (access?: Access) =>
  Object.entries(TABLE)
    .filter(([, a]) => access === undefined || a === access)
    .map(([row]) => row)
    // Deletions last, so the rows before them find the data.
    .sort((a, b) => Number(a.startsWith("DELETE")) - Number(b.startsWith("DELETE")));

async function runAs(key: string, user: string, session: string): Promise<string> {
  const res = await call("POST", "/run", key, { appName: "A", userId: user, sessionId: session, newMessage: MESSAGE });
  expect(res.status).toBe(200);
  const events = (await res.json()) as { id: string }[];
  return events.at(-1)!.id;
}

beforeAll(async () => {
  t = await startAuthServer();
  const app = t.server.app as unknown as { router: { stack: Layer[] } };
  routes = enumerateRoutes(app.router.stack);
  for (const [user, key] of [
    ["bob", KEYS.bob],
    ["alice", KEYS.alice],
  ] as const) {
    expect((await call("POST", `/apps/A/users/${user}/sessions`, key, { sessionId: "s1" })).status).toBe(200);
    const saved = await call("POST", `/apps/A/users/${user}/sessions/s1/artifacts`, key, {
      filename: "note.txt",
      artifact: { text: `${user}'s note` },
    });
    expect(saved.status).toBe(200);
  }
  t.model.push(ScriptedModel.text("for bob"), ScriptedModel.text("for alice"));
  bobEventId = await runAs(KEYS.bob, "bob", "s1");
  aliceEventId = await runAs(KEYS.alice, "alice", "s1");
});

afterAll(async () => {
  await t?.close();
});

describe("the route table", () => {
  it("names every route the server has, and nothing it does not have", () => {
    const unique = [...new Set(routes)].sort();
    expect(unique.filter((r) => !(r in TABLE))).toEqual([]);
    expect(Object.keys(TABLE).filter((r) => !unique.includes(r))).toEqual([]);
  });
});

describe("without credentials", () => {
  it("every route but the public ones is a 401 with a Bearer challenge and a short JSON body", async () => {
    const failures: string[] = [];
    for (const row of rows()) {
      const { method, path, body } = requestFor(row, "bob");
      const res = await call(method, path, undefined, body);
      const expected = TABLE[row] === "public" ? "not 401" : 401;
      if (TABLE[row] === "public" ? res.status === 401 : res.status !== 401) {
        failures.push(`${row}: ${res.status}, expected ${expected}`);
        continue;
      }
      if (TABLE[row] !== "public") {
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="agentkit"');
        expect(await res.json()).toEqual({
          error: expect.stringContaining("Authentication required"),
          detail: expect.stringContaining("Authentication required"),
          code: "UNAUTHENTICATED",
        });
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("alice's key on bob's data", () => {
  it("is a 403 FORBIDDEN on every own-user and admin route, and passes the app-level ones", async () => {
    const failures: string[] = [];
    for (const row of rows()) {
      const access = TABLE[row]!;
      const { method, path, body } = requestFor(row, "bob");
      const res = await call(method, path, KEYS.alice, body);
      const refused = access === "own-user" || access === "admin";
      if (refused ? res.status !== 403 : res.status === 401 || res.status === 403)
        failures.push(`${row} (${access}): ${res.status}`);
      if (refused && res.status === 403) expect(((await res.json()) as { code: string }).code).toBe("FORBIDDEN");
    }
    expect(failures).toEqual([]);
    // Nothing of bob's changed: his session still has its two events and his note.
    const session = (await (await call("GET", "/apps/A/users/bob/sessions/s1", KEYS.bob)).json()) as {
      events: unknown[];
      state: Record<string, unknown>;
    };
    expect(session.events).toHaveLength(2);
    expect(session.state.touched).toBeUndefined();
    expect(await (await call("GET", "/apps/A/users/bob/sessions/s1/artifacts", KEYS.bob)).json()).toEqual(["note.txt"]);
  });

  it("cannot run as bob through any body or query spelling", async () => {
    for (const body of [
      { app_name: "A", user_id: "bob", session_id: "s1", new_message: MESSAGE },
      { appName: "A", userId: "bob", user_id: "alice", sessionId: "s1", newMessage: MESSAGE },
    ]) {
      expect((await call("POST", "/run", KEYS.alice, body)).status).toBe(403);
    }
    expect(
      (await call("POST", "/api/reasoning_engine", KEYS.alice, { input: { appName: "A", userId: "bob" } })).status,
    ).toBe(403);
    // Percent-encoding and letter case of the path are read as the routes read them.
    expect((await call("GET", "/apps/A/users/%62ob/sessions", KEYS.alice)).status).toBe(403);
    expect((await call("GET", "/APPS/A/USERS/bob/sessions/", KEYS.alice)).status).toBe(403);
  });
});

describe("a user on its own data, and the admin on anyone's", () => {
  it("alice passes every own-user route for herself", async () => {
    t.model.push(ScriptedModel.text("1"), ScriptedModel.text("2"), ScriptedModel.text("3"));
    const failures: string[] = [];
    for (const row of rows("own-user")) {
      const { method, path, body } = requestFor(row, "alice");
      const res = await call(method, path, KEYS.alice, body);
      if (res.status === 401 || res.status === 403) failures.push(`${row}: ${res.status}`);
      await res.arrayBuffer();
    }
    expect(failures).toEqual([]);
  });

  it("the admin scope passes every route, on bob's data too", async () => {
    t.model.push(ScriptedModel.text("1"), ScriptedModel.text("2"), ScriptedModel.text("3"));
    const read = await call("GET", "/apps/A/users/bob/sessions/s1", KEYS.admin);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { userId: string }).userId).toBe("bob");
    const failures: string[] = [];
    for (const row of rows()) {
      const { method, path, body } = requestFor(row, "bob");
      const res = await call(method, path, KEYS.admin, body);
      if (res.status === 401 || res.status === 403) failures.push(`${row}: ${res.status}`);
      await res.arrayBuffer();
    }
    expect(failures).toEqual([]);
    expect(t.logger.errors).toEqual([]);
  });
});

describe("traces, found by session or event id, are scoped to their user", () => {
  it("alice sees only her spans of session s1, the admin both users'", async () => {
    const users = async (key: string, path: string) => {
      const res = await call("GET", path, key);
      expect(res.status).toBe(200);
      const spans = (await res.json()) as { attributes: Record<string, unknown> }[];
      return new Set(spans.map((s) => s.attributes["user.id"]));
    };
    for (const path of ["/debug/trace/session/s1", "/dev/apps/A/debug/trace/session/s1"]) {
      expect(await users(KEYS.alice, path)).toEqual(new Set(["alice"]));
      expect(await users(KEYS.admin, path)).toEqual(new Set(["alice", "bob"]));
    }
  });

  it("bob's event trace is a 404 for alice and a 200 for bob and the admin", async () => {
    expect((await call("GET", `/debug/trace/${bobEventId}`, KEYS.alice)).status).toBe(404);
    expect((await call("GET", `/dev/apps/A/debug/trace/${bobEventId}`, KEYS.alice)).status).toBe(404);
    expect((await call("GET", `/debug/trace/${bobEventId}`, KEYS.bob)).status).toBe(200);
    expect((await call("GET", `/debug/trace/${bobEventId}`, KEYS.admin)).status).toBe(200);
    expect((await call("GET", `/debug/trace/${aliceEventId}`, KEYS.alice)).status).toBe(200);
  });
});

describe("runs without a user id", () => {
  it("/api/reasoning_engine runs as the principal", async () => {
    t.model.push(ScriptedModel.text("engine"));
    const res = await call("POST", "/api/reasoning_engine", KEYS.alice, {
      appName: "A",
      sessionId: "engine-1",
      newMessage: MESSAGE,
    });
    expect(res.status).toBe(200);
    expect(await t.sessionService.getSession({ appName: "A", userId: "alice", sessionId: "engine-1" })).toBeDefined();
    expect(
      await t.sessionService.getSession({ appName: "A", userId: "default-user", sessionId: "engine-1" }),
    ).toBeUndefined();
  });
});
