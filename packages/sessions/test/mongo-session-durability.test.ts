import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigurationError, createEvent, SessionError, StaleSessionError, type Session } from "@agentkit/core";
import { MongoClient, ObjectId } from "mongodb";
import {
  APP_STATE_COLLECTION,
  EVENTS_SUBCOLLECTION_NAME,
  MongoMemoryService,
  MongoSessionService,
  SCHEMA_COLLECTION,
  SESSION_COLLECTION_NAME,
  USER_STATE_COLLECTION,
} from "../src/mongodb/index.js";
import { MongoWireServer } from "@agentkit/test-support/mongodb";

let server: MongoWireServer;
let raw: MongoClient;
const opened: { close(): Promise<void> }[] = [];
let dbCounter = 0;

beforeAll(async () => {
  server = await MongoWireServer.start();
  raw = await MongoClient.connect(server.uri);
});
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});
afterAll(async () => {
  await raw.close();
  await server.close();
});

function freshDb(): string {
  dbCounter += 1;
  return `durability_${dbCounter}`;
}

function open(dbName: string): MongoSessionService {
  const service = new MongoSessionService({ uri: server.uri, dbName });
  opened.push(service);
  return service;
}

const key = { appName: "app", userId: "u1", sessionId: "s1" };
const say = (text: string, delta: Record<string, unknown> = {}) =>
  createEvent({ author: "user", content: { role: "user", parts: [{ text }] }, actions: { stateDelta: delta } });

describe("MongoSessionService layout and start", () => {
  it("creates its collections' indexes and records the schema version on start", async () => {
    const dbName = freshDb();
    await open(dbName).start();
    const db = raw.db(dbName);
    const names = async (collection: string) =>
      (await db.collection(collection).listIndexes().toArray()).map((i) => i.name).sort();
    expect(await names(SESSION_COLLECTION_NAME)).toEqual(["_id_", "session_key"]);
    expect(await names(EVENTS_SUBCOLLECTION_NAME)).toEqual(["_id_", "session_events", "session_seq"]);
    expect(await names(APP_STATE_COLLECTION)).toEqual(["_id_", "app_key"]);
    expect(await names(USER_STATE_COLLECTION)).toEqual(["_id_", "user_key"]);
    expect(await db.collection(SCHEMA_COLLECTION).findOne({ _id: "sessions" as never })).toMatchObject({ version: 2 });
    expect([EVENTS_SUBCOLLECTION_NAME, APP_STATE_COLLECTION]).toEqual(["user-event", "app-state"]);
  });

  it("stores sessions, events, app and user state in their own collections", async () => {
    const dbName = freshDb();
    const service = open(dbName);
    const s = await service.createSession({
      appName: "app",
      userId: "u1",
      sessionId: "s1",
      state: { own: 1, "app:a": 2, "user:u": 3 },
    });
    await service.appendEvent({ session: s, event: say("hello", { own: 4 }) });
    const db = raw.db(dbName);
    expect(await db.collection(SESSION_COLLECTION_NAME).findOne({ id: "s1" })).toMatchObject({
      appName: "app",
      userId: "u1",
      state: { own: 4 },
      revision: 1,
    });
    expect(await db.collection(EVENTS_SUBCOLLECTION_NAME).findOne({ sessionId: "s1" })).toMatchObject({
      seq: 1,
      author: "user",
      event: { content: { parts: [{ text: "hello" }] } },
    });
    expect(await db.collection(APP_STATE_COLLECTION).findOne({ appName: "app" })).toMatchObject({ state: { a: 2 } });
    expect(await db.collection(USER_STATE_COLLECTION).findOne({ appName: "app", userId: "u1" })).toMatchObject({
      state: { u: 3 },
    });
  });

  it("keeps state keys and event fields with dots and dollar signs intact", async () => {
    const dbName = freshDb();
    const service = open(dbName);
    const tricky = { "a.b": 1, $ref: "#/x", "100%": { "nested.key": ["$v"] }, "app:x.y": true, "user:$u": 2 };
    const s = await service.createSession({ ...key, appName: "app", state: tricky });
    const event = createEvent({
      author: "model",
      content: {
        role: "model",
        parts: [{ functionCall: { name: "f", args: { $schema: "s", "dotted.arg": { "%2E": 1 } } } }],
      },
      actions: { stateDelta: { "later.key": "v", $later: 1 } },
    });
    await service.appendEvent({ session: s, event });
    const back = await open(dbName).getSession(key);
    expect(back?.state).toEqual({ ...tricky, "later.key": "v", $later: 1 });
    expect(back?.events[0]?.content?.parts?.[0]?.functionCall?.args).toEqual({
      $schema: "s",
      "dotted.arg": { "%2E": 1 },
    });
  });

  it("upgrades a version-1 store (no revisions or sequence numbers) on start", async () => {
    const dbName = freshDb();
    const db = raw.db(dbName);
    await db.collection(SCHEMA_COLLECTION).insertOne({ _id: "sessions" as never, version: 1, updatedAt: new Date() });
    await db.collection(SESSION_COLLECTION_NAME).insertOne({
      appName: "app",
      userId: "u1",
      id: "s1",
      state: { old: true },
      updateTime: 1_700_000_010,
      createTime: 1_700_000_000,
    });
    const stored = (id: string, timestamp: number) => ({
      appName: "app",
      userId: "u1",
      sessionId: "s1",
      id,
      timestamp,
      author: "user",
      event: {
        id,
        author: "user",
        timestamp,
        invocationId: "",
        actions: { stateDelta: {} },
        content: { role: "user", parts: [{ text: id }] },
      },
    });
    await db
      .collection(EVENTS_SUBCOLLECTION_NAME)
      .insertMany([stored("second", 1_700_000_005), stored("first", 1_700_000_001)]);
    const service = open(dbName);
    const session = await service.getSession(key);
    expect(session?.events.map((e) => e.id)).toEqual(["first", "second"]);
    expect(session?.state).toEqual({ old: true });
    expect(session?.lastUpdateTime).toBe(1_700_000_010);
    await service.appendEvent({ session: session!, event: say("third") });
    expect((await open(dbName).getSession(key))?.events.map((e) => e.id)).toEqual([
      "first",
      "second",
      expect.any(String),
    ]);
    expect(await db.collection(SCHEMA_COLLECTION).findOne({ _id: "sessions" as never })).toMatchObject({ version: 2 });
    expect(await db.collection(SESSION_COLLECTION_NAME).findOne({ id: "s1" })).toMatchObject({ revision: 3 });
  });

  it("refuses a store written by a newer schema with a clear error", async () => {
    const dbName = freshDb();
    await raw
      .db(dbName)
      .collection(SCHEMA_COLLECTION)
      .insertOne({ _id: "sessions" as never, version: 99, updatedAt: new Date() });
    const attempt = open(dbName).getSession(key);
    await expect(attempt).rejects.toBeInstanceOf(SessionError);
    await expect(attempt).rejects.toMatchObject({ code: "SESSION_SCHEMA_TOO_NEW" });
  });
});

describe("MongoSessionService across instances", () => {
  it("reads everything back through a new instance (restart)", async () => {
    const dbName = freshDb();
    const first = open(dbName);
    const s = await first.createSession({
      ...key,
      appName: "app",
      state: { "app:theme": "dark", "user:name": "Ada", own: 0 },
    });
    for (let i = 1; i <= 20; i++) await first.appendEvent({ session: s, event: say(`message ${i}`, { own: i }) });
    await first.close();
    const second = open(dbName);
    const back = await second.getSession(key);
    expect(back?.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(
      Array.from({ length: 20 }, (_, i) => `message ${i + 1}`),
    );
    expect(back?.state).toEqual({ "app:theme": "dark", "user:name": "Ada", own: 20 });
    expect(back?.lastUpdateTime).toBe(s.lastUpdateTime);
    // The reloaded copy is current: the new instance can keep appending.
    await second.appendEvent({ session: back!, event: say("after restart") });
    expect((await second.listSessions({ appName: "app", userId: "u1" })).sessions.map((x) => x.id)).toEqual(["s1"]);
  });

  it("two instances appending to one session never lose an event: the stale writer gets StaleSessionError", async () => {
    const dbName = freshDb();
    const a = open(dbName);
    const b = open(dbName);
    await a.createSession({ ...key, appName: "app" });
    const accepted: string[] = [];
    let stale = 0;
    // Two replicas, each running a loop: reload, append, and on a stale error reload and retry.
    const replica = async (service: MongoSessionService, name: string) => {
      for (let i = 0; i < 15; i++) {
        const event = say(`${name}-${i}`, { [`${name}`]: i, "app:last": `${name}-${i}` });
        for (;;) {
          const session = (await service.getSession(key)) as Session;
          try {
            await service.appendEvent({ session, event: structuredClone(event) });
            accepted.push(event.id);
            break;
          } catch (error) {
            if (!(error instanceof StaleSessionError)) throw error;
            stale += 1;
          }
        }
      }
    };
    await Promise.all([replica(a, "a"), replica(b, "b")]);
    const stored = await open(dbName).getSession(key);
    expect(stored?.events).toHaveLength(30);
    expect(new Set(stored?.events.map((e) => e.id))).toEqual(new Set(accepted));
    // Every accepted event is stored exactly once, in the order the store accepted them.
    expect(stored?.events.map((e) => e.id)).toEqual(accepted);
    expect(stored?.state).toMatchObject({ a: 14, b: 14 });
    expect(stale).toBeGreaterThan(0);
  });

  it("rejects the second of two holders of one copy, even on different instances", async () => {
    const dbName = freshDb();
    const a = open(dbName);
    const b = open(dbName);
    await a.createSession({ ...key, appName: "app" });
    const copyA = (await a.getSession(key))!;
    const copyB = (await b.getSession(key))!;
    const results = await Promise.allSettled([
      a.appendEvent({ session: copyA, event: say("from a") }),
      b.appendEvent({ session: copyB, event: say("from b") }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(StaleSessionError);
    expect((await a.getSession(key))?.events).toHaveLength(1);
  });

  it("opens consistent after a writer dies between its event insert and its session update", async () => {
    const dbName = freshDb();
    const writer = open(dbName);
    const s = await writer.createSession({ ...key, appName: "app", state: { n: 0 } });
    await writer.appendEvent({ session: s, event: say("one", { n: 1 }) });
    // The connection drops on the session update (the second half of an append), as if the
    // writer's process died right after committing its event.
    await raw.db("admin").command({
      configureFailPoint: "failCommand",
      mode: { times: 1 },
      data: { failCommands: ["update"], closeConnection: true },
    });
    await expect(
      writer.appendEvent({ session: s, event: say("two", { n: 2, "user:seen": true }) }),
    ).rejects.toBeInstanceOf(SessionError);
    const half = await raw.db(dbName).collection(SESSION_COLLECTION_NAME).findOne({ id: "s1" });
    expect(half).toMatchObject({ revision: 1, state: { n: 1 } });
    const reader = open(dbName);
    const back = await reader.getSession(key);
    expect(back?.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["one", "two"]);
    expect(back?.state).toEqual({ n: 2, "user:seen": true });
    expect(await raw.db(dbName).collection(SESSION_COLLECTION_NAME).findOne({ id: "s1" })).toMatchObject({
      revision: 2,
      state: { n: 2 },
    });
    await reader.appendEvent({ session: back!, event: say("three", { n: 3 }) });
    expect((await reader.getSession(key))?.events).toHaveLength(3);
  });

  it("a writer that finds a half-finished append completes it and reports itself stale", async () => {
    const dbName = freshDb();
    const writer = open(dbName);
    const s = await writer.createSession({ ...key, appName: "app" });
    const copy = structuredClone(s);
    await raw.db("admin").command({
      configureFailPoint: "failCommand",
      mode: { times: 1 },
      data: { failCommands: ["update"], closeConnection: true },
    });
    await expect(writer.appendEvent({ session: s, event: say("lost?", { k: 1 }) })).rejects.toBeInstanceOf(
      SessionError,
    );
    const other = open(dbName);
    await expect(other.appendEvent({ session: copy, event: say("late") })).rejects.toBeInstanceOf(StaleSessionError);
    const stored = await raw.db(dbName).collection(SESSION_COLLECTION_NAME).findOne({ id: "s1" });
    expect(stored).toMatchObject({ revision: 1, state: { k: 1 } });
  });

  it("does not let events of a deleted session leak into a new session with the same id", async () => {
    const dbName = freshDb();
    const service = open(dbName);
    const s = await service.createSession({ ...key, appName: "app" });
    await raw.db("admin").command({
      configureFailPoint: "failCommand",
      mode: { times: 1 },
      data: { failCommands: ["update"], closeConnection: true },
    });
    await expect(service.appendEvent({ session: s, event: say("orphan") })).rejects.toBeInstanceOf(SessionError);
    // Simulate a delete that raced with the half-finished append: only the session document goes.
    await raw.db(dbName).collection(SESSION_COLLECTION_NAME).deleteOne({ id: "s1" });
    const again = await service.createSession({ ...key, appName: "app" });
    await service.appendEvent({ session: again, event: say("fresh") });
    expect((await service.getSession(key))?.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["fresh"]);
  });
});

describe("MongoSessionService options and failures", () => {
  it("rejects bad options with ConfigurationError", () => {
    expect(() => new MongoSessionService({ uri: "postgres://x" })).toThrow(ConfigurationError);
    expect(() => new MongoSessionService({} as never)).toThrow(ConfigurationError);
    expect(() => new MongoMemoryService({ client: {} as never })).toThrow(ConfigurationError);
  });

  it("takes the database from the URI path (fromUri) and defaults to agentkit", async () => {
    const uri = server.uri.replace("/?", "/from_uri_db?");
    const service = MongoSessionService.fromUri(uri);
    opened.push(service);
    await service.createSession({ ...key, appName: "app" });
    expect(await raw.db("from_uri_db").collection(SESSION_COLLECTION_NAME).countDocuments()).toBe(1);
    const plain = MongoSessionService.fromUri(server.uri);
    opened.push(plain);
    await plain.createSession({ ...key, appName: "default-db-app" });
    expect(
      await raw.db("agentkit").collection(SESSION_COLLECTION_NAME).countDocuments({ appName: "default-db-app" }),
    ).toBe(1);
  });

  it("rejects invalid names with a typed error instead of writing them", async () => {
    const service = open(freshDb());
    await expect(service.createSession({ appName: "", userId: "u1" })).rejects.toMatchObject({
      code: "INVALID_SESSION_KEY",
    });
    await expect(service.createSession({ appName: "app", userId: 5 as never })).rejects.toBeInstanceOf(SessionError);
  });

  it("reports an unreachable server as a SessionError with the driver's cause, and a closed service clearly", async () => {
    const down = await MongoWireServer.start();
    const uri = down.uri;
    await down.close();
    const service = new MongoSessionService({ uri, clientOptions: { serverSelectionTimeoutMS: 300 } });
    const attempt = service.getSession(key);
    await expect(attempt).rejects.toBeInstanceOf(SessionError);
    await expect(attempt).rejects.toMatchObject({ code: "SESSION_STORE_ERROR" });
    await service.close();
    await expect(service.getSession(key)).rejects.toMatchObject({ code: "SESSION_SERVICE_CLOSED" });
  });

  it("closes only the client it created", async () => {
    const client = new MongoClient(server.uri);
    const borrowed = new MongoSessionService({ client, dbName: freshDb() });
    await borrowed.start();
    await borrowed.close();
    await expect(client.db("admin").command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    await client.close();
    // A server of its own, so no other client's connections are counted.
    const own = await MongoWireServer.start();
    try {
      const owned = new MongoSessionService({ uri: own.uri });
      await owned.start();
      expect(own.connectionCount).toBeGreaterThan(0);
      await owned.close();
      // The server sees each socket close a moment after the client closed it: wait for that.
      while (own.connectionCount > 0) await new Promise((r) => setTimeout(r, 10));
      expect(own.connectionCount).toBe(0);
    } finally {
      await own.close();
    }
  });

  it("memory: remembers across instances and ignores other users", async () => {
    const dbName = freshDb();
    const writer = new MongoMemoryService({ uri: server.uri, dbName });
    opened.push(writer);
    const session: Session = {
      id: "s1",
      appName: "app",
      userId: "u1",
      state: {},
      lastUpdateTime: 1,
      events: [
        createEvent({
          id: "e1",
          author: "user",
          timestamp: 1_700_000_000,
          content: { role: "user", parts: [{ text: "The Eiffel tower" }] },
        }),
      ],
    };
    await writer.addSessionToMemory(session);
    await writer.close();
    const reader = new MongoMemoryService({ client: raw, dbName });
    opened.push(reader);
    expect(
      (await reader.searchMemory({ appName: "app", userId: "u1", query: "eiffel?" })).memories.map((m) => m.id),
    ).toEqual(["e1"]);
    expect((await reader.searchMemory({ appName: "app", userId: "u2", query: "eiffel" })).memories).toEqual([]);
    const stored = await raw.db(dbName).collection("memory").findOne({ eventId: "e1" });
    expect(stored?.words).toEqual(["the", "eiffel", "tower"]);
    expect(stored?._id).toBeInstanceOf(ObjectId);
  });
});
