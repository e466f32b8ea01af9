import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError, createEvent, SessionError, SessionNotFoundError, StaleSessionError } from "@agentkit/core";
import { ManagedSessionApiError, ManagedSessionService, managedSessionId } from "../src/managed/index.js";
import { runSessionServiceContract } from "../src/testing/index.js";
import { ManagedSessionServer } from "@agentkit/test-support/managed-sessions";
import { CuttingProxy } from "./fixtures/cutting-proxy.js";

// The contract suites register their tests with jest's functions.
const testApi = { describe, it, expect, beforeEach, afterEach };

let server: ManagedSessionServer;
const services: ManagedSessionService[] = [];

beforeAll(async () => {
  server = await ManagedSessionServer.start({ token: "secret-token", operationPolls: 2 });
});
afterAll(async () => {
  await server.close();
});

function service(extra: Partial<ConstructorParameters<typeof ManagedSessionService>[0]> = {}): ManagedSessionService {
  const s = new ManagedSessionService({
    baseUrl: server.url,
    project: "p1",
    location: "us-central1",
    accessToken: "secret-token",
    pollIntervalMs: 1,
    timeoutMs: 5000,
    ...extra,
  });
  services.push(s);
  return s;
}

runSessionServiceContract(
  "ManagedSessionService (local Agent Engine sessions API)",
  async () => ({ service: service() }),
  testApi,
  { manyEvents: 60 },
);

describe("ManagedSessionService against the local sessions API", () => {
  afterEach(async () => {
    for (const s of services.splice(0)) await s.close();
  });
  const key = { appName: "engine-1", userId: "u1", sessionId: "s1" };

  it("creates through a long-running operation, polling it until done, with a bearer token from a callback", async () => {
    let calls = 0;
    const s = service({
      accessToken: undefined,
      getAccessToken: async () => {
        calls++;
        return "secret-token";
      },
    });
    const before = server.requests.length;
    await s.createSession({ appName: "engine-1", userId: "u1", sessionId: "Upper_Case id!" });
    const sent = server.requests.slice(before);
    const create = sent.find((r) => r.method === "POST" && r.path.endsWith("/sessions"));
    expect(create?.path).toBe("/v1beta1/projects/p1/locations/us-central1/reasoningEngines/engine-1/sessions");
    expect(create?.query.sessionId).toBe(managedSessionId("u1", "Upper_Case id!"));
    expect(create?.body).toMatchObject({ userId: "u1", displayName: "Upper_Case id!", sessionState: {} });
    expect(sent.filter((r) => r.path.includes("/operations/")).length).toBe(2);
    expect(sent.every((r) => r.authorization === "Bearer secret-token")).toBe(true);
    expect(calls).toBe(sent.length);
    expect((await s.getSession({ ...key, sessionId: "Upper_Case id!" }))?.id).toBe("Upper_Case id!");
  });

  it("sends events with the typed fields the service acts on and the raw event", async () => {
    const s = service();
    const session = await s.createSession({ appName: "engine-1", userId: "u1", sessionId: "typed" });
    const event = createEvent({
      author: "agent",
      invocationId: "e-1",
      branch: "root",
      content: { role: "model", parts: [{ text: "hi" }] },
      actions: { stateDelta: { k: 1, "temp:t": 2 }, transferToAgent: "other" },
    });
    await s.appendEvent({ session, event });
    const stored = server.session(
      `projects/p1/locations/us-central1/reasoningEngines/engine-1/sessions/${managedSessionId("u1", "typed")}`,
    );
    expect(stored?.sessionState).toEqual({ k: 1 });
    expect(stored?.events[0]).toMatchObject({
      author: "agent",
      invocationId: "e-1",
      actions: { stateDelta: { k: 1 }, transferAgent: "other" },
      eventMetadata: { branch: "root" },
      rawEvent: { id: event.id },
    });
    expect(String(stored?.events[0]?.timestamp)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it("reads events written by other clients without a raw event from the typed fields", async () => {
    const s = service();
    const session = await s.createSession({ appName: "engine-1", userId: "u1", sessionId: "foreign" });
    const stored = server.session(
      `projects/p1/locations/us-central1/reasoningEngines/engine-1/sessions/${managedSessionId("u1", "foreign")}`,
    )!;
    stored.events.push({
      name: `${stored.name}/events/77`,
      author: "user",
      invocationId: "inv",
      timestamp: "2026-01-01T00:00:00.250Z",
      content: { role: "user", parts: [{ text: "from python" }] },
      actions: { stateDelta: { a: 1 } },
      eventMetadata: { turnComplete: true },
    });
    const back = await s.getSession({ ...key, sessionId: session.id });
    expect(back?.events[0]).toMatchObject({
      id: "77",
      author: "user",
      invocationId: "inv",
      timestamp: 1767225600.25,
      turnComplete: true,
      content: { parts: [{ text: "from python" }] },
    });
  });

  it("maps errors to typed errors: 401, 404, 409, 5xx", async () => {
    const noToken = service({ accessToken: "wrong" });
    const unauthorized = noToken.getSession(key);
    await expect(unauthorized).rejects.toBeInstanceOf(ManagedSessionApiError);
    await expect(unauthorized).rejects.toMatchObject({ code: "MANAGED_SESSION_AUTH", status: 401 });
    const s = service();
    expect(await s.getSession({ ...key, sessionId: "nope" })).toBeUndefined();
    const session = await s.createSession({ appName: "engine-1", userId: "u1", sessionId: "gone" });
    await s.deleteSession({ ...key, sessionId: "gone" });
    await expect(s.appendEvent({ session, event: createEvent({ author: "user" }) })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    server.failNext(503, /GET .*\/sessions\//);
    await expect(s.getSession(key)).rejects.toMatchObject({ code: "MANAGED_SESSION_UNAVAILABLE", status: 503 });
    await expect(s.createSession({ appName: "engine-1", userId: "u1", sessionId: "x" })).resolves.toBeDefined();
    await expect(s.createSession({ appName: "engine-1", userId: "u1", sessionId: "x" })).rejects.toMatchObject({
      code: "SESSION_ALREADY_EXISTS",
    });
  });

  it("times out a request that never gets an answer, and close() aborts requests in flight", async () => {
    const slow = service({ timeoutMs: 150 });
    server.stallNext(/GET .*\/sessions\/[^/]+$/);
    // The server never answers: only the timeout ends the call.
    await expect(slow.getSession(key)).rejects.toMatchObject({ code: "MANAGED_SESSION_TIMEOUT" });
    const s = service();
    server.stallNext(/GET .*\/sessions\/[^/]+$/);
    const seen = server.requests.length;
    const pending = s.getSession(key);
    while (server.requests.length === seen) await new Promise((r) => setImmediate(r)); // in flight, stalled
    await s.close();
    await expect(pending).rejects.toMatchObject({ code: "SESSION_SERVICE_CLOSED" });
    await expect(s.getSession(key)).rejects.toMatchObject({ code: "SESSION_SERVICE_CLOSED" });
  });

  it("gives up on an operation that never finishes", async () => {
    const slowOps = await ManagedSessionServer.start({ operationPolls: 100 });
    try {
      const s = new ManagedSessionService({
        baseUrl: slowOps.url,
        project: "p",
        location: "l",
        pollIntervalMs: 1,
        maxPolls: 3,
      });
      services.push(s);
      await expect(s.createSession({ appName: "e", userId: "u" })).rejects.toMatchObject({
        code: "MANAGED_SESSION_TIMEOUT",
      });
    } finally {
      await slowOps.close();
    }
  });

  it("detects a stale writer on another instance", async () => {
    const a = service();
    const b = service();
    await a.createSession({ appName: "engine-1", userId: "u1", sessionId: "shared" });
    const copyA = (await a.getSession({ ...key, sessionId: "shared" }))!;
    const copyB = (await b.getSession({ ...key, sessionId: "shared" }))!;
    await a.appendEvent({ session: copyA, event: createEvent({ author: "a" }) });
    await expect(b.appendEvent({ session: copyB, event: createEvent({ author: "b" }) })).rejects.toBeInstanceOf(
      StaleSessionError,
    );
  });

  it("uses one configured engine for every app, and rejects bad options", () => {
    expect(() => new ManagedSessionService({ project: "", location: "l" })).toThrow(ConfigurationError);
    expect(() => new ManagedSessionService({ project: "p", location: "l", baseUrl: "not a url" })).toThrow(
      ConfigurationError,
    );
    for (const maxResponseBytes of [0, -1, 1.5, Number.NaN])
      expect(() => new ManagedSessionService({ project: "p", location: "l", maxResponseBytes })).toThrow(
        /maxResponseBytes must be a positive integer/,
      );
    expect(new ManagedSessionService({ project: "p", location: "l" })).toBeInstanceOf(ManagedSessionService);
  });

  it("refuses an answer over maxResponseBytes as unavailable, never a short or missing session", async () => {
    const key = { appName: "engine-1", userId: "u-big", sessionId: "big" };
    const roomy = service();
    const session = await roomy.createSession(key);
    await roomy.appendEvent({
      session,
      event: createEvent({ author: "user", content: { role: "user", parts: [{ text: "x".repeat(2000) }] } }),
    });
    const small = service({ maxResponseBytes: 1000 });
    const read = small.getSession(key);
    await expect(read).rejects.toBeInstanceOf(SessionError);
    await expect(read).rejects.toMatchObject({
      code: "MANAGED_SESSION_UNAVAILABLE",
      message: expect.stringContaining("exceeded the limit of 1000 bytes"),
    });
    // The same read with room for the answer.
    expect((await roomy.getSession(key))?.events).toHaveLength(1);
  });

  it("routes every app to a configured reasoningEngineId", async () => {
    const s = service({ reasoningEngineId: "fixed-engine" });
    const before = server.requests.length;
    await s.createSession({ appName: "any app", userId: "u1", sessionId: "r1" });
    expect(server.requests.slice(before).every((r) => r.path.includes("/reasoningEngines/fixed-engine/"))).toBe(true);
    await expect(s.getSession({ appName: "", userId: "u1", sessionId: "r1" })).rejects.toBeInstanceOf(SessionError);
  });
});

describe("ManagedSessionService when an answer breaks off after its headers", () => {
  let proxy: CuttingProxy;
  beforeAll(async () => {
    proxy = await CuttingProxy.start(server.url);
  });
  afterAll(async () => {
    await proxy.close();
  });
  afterEach(async () => {
    for (const s of services.splice(0)) await s.close();
  });

  /** A service through the proxy, counting the answers whose headers came in (fetch resolved). */
  function throughProxy(extra: Partial<ConstructorParameters<typeof ManagedSessionService>[0]> = {}) {
    const seen = { answers: 0 };
    const s = service({
      baseUrl: proxy.url,
      fetch: async (input, init) => {
        const response = await globalThis.fetch(input, init);
        seen.answers++;
        return response;
      },
      ...extra,
    });
    return { s, seen };
  }

  it("rejects a body cut off mid-read as unavailable: never a missing session, an empty list or a short history", async () => {
    const { s } = throughProxy();
    const key = { appName: "engine-1", userId: "u-cut", sessionId: "cut" };
    const session = await s.createSession(key);
    // More events than one page of the API (4): reading them takes two requests.
    for (let i = 0; i < 6; i++)
      await s.appendEvent({ session, event: createEvent({ author: "user", invocationId: `inv-${i}` }) });
    expect((await s.getSession(key))?.events).toHaveLength(6);
    expect((await s.listSessions({ appName: key.appName, userId: key.userId })).sessions).toHaveLength(1);

    // The session itself.
    proxy.cutNext(/^GET .*\/sessions\/[^/?]+$/);
    const get = s.getSession(key);
    await expect(get).rejects.toBeInstanceOf(SessionError);
    await expect(get).rejects.toMatchObject({
      code: "MANAGED_SESSION_UNAVAILABLE",
      message: expect.stringContaining("reading the response body"),
    });
    // A page of the session list.
    proxy.cutNext(/^GET .*\/sessions\?/);
    await expect(s.listSessions({ appName: key.appName, userId: key.userId })).rejects.toMatchObject({
      code: "MANAGED_SESSION_UNAVAILABLE",
    });
    // The second page of the events: a run must not start from the first page alone.
    proxy.cutNext(/^GET .*\/events\?.*pageToken=/);
    await expect(s.getSession(key)).rejects.toMatchObject({ code: "MANAGED_SESSION_UNAVAILABLE" });
    expect(proxy.broken).toHaveLength(3);
    // Nothing was left broken: the same calls answer in full again.
    expect((await s.getSession(key))?.events).toHaveLength(6);
  });

  it("times out a body that stalls after the headers, and close() ends a stalled read", async () => {
    const key = { appName: "engine-1", userId: "u-stall", sessionId: "stall" };
    const { s, seen } = throughProxy({ timeoutMs: 300 });
    await s.createSession(key);
    proxy.stallNext(/^GET .*\/sessions\/[^/?]+$/);
    const before = seen.answers;
    const started = performance.now();
    const get = s.getSession(key);
    await expect(get).rejects.toMatchObject({
      code: "MANAGED_SESSION_TIMEOUT",
      message: expect.stringContaining("reading the response body"),
    });
    // The headers were in: the timeout ended the body's read, not the request.
    expect(seen.answers).toBe(before + 1);
    expect(performance.now() - started).toBeLessThan(5000);

    const other = throughProxy();
    proxy.stallNext(/^GET .*\/sessions\/[^/?]+$/);
    const answered = other.seen.answers;
    const pending = other.s.getSession(key);
    while (other.seen.answers === answered) await new Promise((r) => setTimeout(r, 1)); // reading the body
    await other.s.close();
    await expect(pending).rejects.toMatchObject({ code: "SESSION_SERVICE_CLOSED" });
  });
});
