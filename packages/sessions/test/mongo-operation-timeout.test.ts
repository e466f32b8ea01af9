// The bound on each operation of a MongoDB client a service creates itself (socketTimeoutMS):
// the wire-protocol test server withholds its replies (a hung server, a silent network) until the
// test releases them; the tests wait on what the server saw (counts), never on the clock.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { createEvent, SessionError } from "@agentkit/core";
import { MongoClient, MongoNetworkTimeoutError } from "mongodb";
import { MongoWireServer } from "@agentkit/test-support/mongodb";
import {
  MongoCredentialStore,
  MongoMemoryService,
  MongoSessionLock,
  MongoSessionService,
  SESSION_COLLECTION_NAME,
} from "../src/mongodb/index.js";

/** The bound the tests set (the default is 30 s); generous, so a loaded CI machine cannot push an answered operation past it. */
const BOUND_MS = 1000;
/** How long a test waits for an outcome before it counts as "never": far past the bound. */
const NEVER_MS = 10_000;

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
  return `timeout_${dbCounter}`;
}

function track<T extends { close(): Promise<void> }>(service: T): T {
  opened.push(service);
  return service;
}

/** The driver client behind a service (every Mongo service keeps it in its MongoHandle). */
function clientOf(service: object): MongoClient {
  return (service as unknown as { handle: { client: MongoClient } }).handle.client;
}

/** `promise`, or a rejection naming `what` if it has not settled after NEVER_MS. */
async function settles<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const never = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${NEVER_MS} ms`)), NEVER_MS);
  });
  try {
    return await Promise.race([promise, never]);
  } finally {
    clearTimeout(timer);
  }
}

/** The failure of `promise` (which must fail). */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );
}

const key = { appName: "app", userId: "u1", sessionId: "s1" };
const say = (text: string) => createEvent({ author: "user", content: { role: "user", parts: [{ text }] } });

describe("MongoDB operation bound of a client the service creates (socketTimeoutMS)", () => {
  it("defaults to 30 s unless the URI or clientOptions sets it, and never touches a borrowed client", async () => {
    const uri = server.uri;
    const services = [
      (o: object) => new MongoSessionService({ uri, ...o }),
      (o: object) => new MongoMemoryService({ uri, ...o }),
      (o: object) => new MongoCredentialStore({ uri, ...o }),
      (o: object) => new MongoSessionLock({ uri, ...o }),
    ];
    for (const make of services) {
      expect(clientOf(track(make({}))).options.socketTimeoutMS).toBe(30_000);
      // The finding-a-server default stays as it was.
      expect(clientOf(track(make({}))).options.serverSelectionTimeoutMS).toBe(10_000);
    }
    const withUri = (query: string, clientOptions?: object) =>
      clientOf(track(new MongoSessionService({ uri: `${uri}&${query}`, ...(clientOptions ? { clientOptions } : {}) })))
        .options.socketTimeoutMS;
    // The URI's own value wins over the default (option names are case-insensitive), 0 included.
    expect(withUri("socketTimeoutMS=1234")).toBe(1234);
    expect(withUri("sockettimeoutms=0")).toBe(0);
    // clientOptions win over both.
    expect(withUri("socketTimeoutMS=1234", { socketTimeoutMS: 500 })).toBe(500);
    expect(
      clientOf(track(new MongoSessionService({ uri, clientOptions: { socketTimeoutMS: 0 } }))).options,
    ).toMatchObject({ socketTimeoutMS: 0, serverSelectionTimeoutMS: 10_000 });
    // A caller's own client keeps its own options (the driver's default: no bound).
    const own = new MongoClient(uri);
    expect(clientOf(track(new MongoSessionService({ client: own }))).options.socketTimeoutMS).toBe(0);
    expect(clientOf(track(new MongoSessionLock({ client: own }))).options.socketTimeoutMS).toBe(0);
    await own.close();
  });

  it("getSession on a server that stops answering fails with a typed timeout error after the bound (clientOptions), and works again once it answers", async () => {
    const dbName = freshDb();
    const service = track(
      new MongoSessionService({ uri: server.uri, dbName, clientOptions: { socketTimeoutMS: BOUND_MS } }),
    );
    await service.createSession(key);
    const hold = server.holdReplies(["find"]);
    let error: unknown;
    try {
      error = await settles(failureOf(service.getSession(key)), "getSession on a silent server");
      // The driver retries a read once, on another connection: both attempts were sent, and the
      // connection of each was closed by the client, not put back in the pool.
      await settles(hold.closed(2), "the client closing the timed-out connections");
    } finally {
      expect(hold.release()).toEqual({ answered: 0, dropped: 2 });
    }
    expect(error).toBeInstanceOf(SessionError);
    expect(error).toMatchObject({
      code: "SESSION_STORE_ERROR",
      message: expect.stringMatching(
        /^MongoDB getSession timed out: the server did not answer in time \(connection \d+ to .* timed out\)$/,
      ),
    });
    expect((error as SessionError).cause).toBeInstanceOf(MongoNetworkTimeoutError);
    // The server answers again: the same service works, on fresh connections.
    expect(await service.getSession(key)).toMatchObject({ id: "s1", events: [] });
  });

  it("appendEvent on a server that stops answering fails with a typed timeout error after the bound set in the URI, and the append succeeds once it answers", async () => {
    const dbName = freshDb();
    const service = track(new MongoSessionService({ uri: `${server.uri}&socketTimeoutMS=${BOUND_MS}`, dbName }));
    const session = await service.createSession(key);
    const hold = server.holdReplies(["insert"]);
    let error: unknown;
    try {
      error = await settles(failureOf(service.appendEvent({ session, event: say("lost") })), "appendEvent");
      await settles(hold.closed(1), "the client closing the timed-out connection");
    } finally {
      // A standalone server has no retryable writes: one attempt, never run.
      expect(hold.release()).toEqual({ answered: 0, dropped: 1 });
    }
    expect(error).toBeInstanceOf(SessionError);
    expect(error).toMatchObject({
      code: "SESSION_STORE_ERROR",
      message: expect.stringMatching(/^MongoDB appendEvent timed out/),
    });
    expect(await raw.db(dbName).collection(SESSION_COLLECTION_NAME).findOne({ id: "s1" })).toMatchObject({
      revision: 0,
    });
    await service.appendEvent({ session, event: say("kept") });
    expect((await service.getSession(key))?.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["kept"]);
  });

  it("a server that stops answering everything, handshakes included, still ends the call with the typed error", async () => {
    const dbName = freshDb();
    // A new connection's handshake is bounded by connectTimeoutMS (30 s by default), not by
    // socketTimeoutMS: a read's retry needs one, so both are lowered together here.
    const service = track(
      new MongoSessionService({
        uri: server.uri,
        dbName,
        clientOptions: { socketTimeoutMS: BOUND_MS, connectTimeoutMS: BOUND_MS },
      }),
    );
    await service.createSession(key);
    const hold = server.holdReplies();
    let error: unknown;
    try {
      error = await settles(failureOf(service.getSession(key)), "getSession on a hung server");
    } finally {
      hold.release();
    }
    expect(error).toBeInstanceOf(SessionError);
    expect(error).toMatchObject({
      code: "SESSION_STORE_ERROR",
      message: expect.stringMatching(/^MongoDB getSession timed out/),
    });
    // Once the server answers again the service finds it again (a new monitor check, new connections).
    expect(await settles(service.getSession(key), "getSession after the server recovered")).toMatchObject({
      id: "s1",
    });
  });
});

describe("MongoSessionLock under the operation bound", () => {
  it("waits for a held lease longer than the bound (it polls; no operation waits on the server)", async () => {
    const options = { uri: server.uri, dbName: freshDb(), clientOptions: { socketTimeoutMS: BOUND_MS } };
    const a = track(new MongoSessionLock(options));
    const b = track(new MongoSessionLock(options));
    const releaseA = await a.acquire(key, { waitMs: 30_000 });
    const updates = () => server.database.commandCounts.get("update") ?? 0;
    const before = updates();
    let bHolds = false;
    const bWaits = b.acquire(key, { waitMs: 30_000 }).then((release) => {
      bHolds = true;
      return release;
    });
    // Sixteen refused attempts: the pauses between them (5, 10, 20, … then 200 ms each) add up to
    // over twice the bound, so B's pooled connection sat idle past it between operations.
    while (updates() - before < 16) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(bHolds).toBe(false);
    await releaseA();
    const releaseB = await settles(bWaits, "B's acquire after A released");
    await releaseB();
  });

  it("ends an acquire on a server that stops answering with a typed timeout error", async () => {
    const lock = track(new MongoSessionLock({ uri: `${server.uri}&socketTimeoutMS=${BOUND_MS}`, dbName: freshDb() }));
    await (await lock.acquire(key, { waitMs: 1000 }))();
    const hold = server.holdReplies(["update"]);
    let error: unknown;
    try {
      error = await settles(failureOf(lock.acquire(key, { waitMs: 30_000 })), "acquire on a silent server");
      await settles(hold.closed(1), "the client closing the timed-out connection");
    } finally {
      // The upsert never ran: the lease stays free.
      expect(hold.release()).toEqual({ answered: 0, dropped: 1 });
    }
    expect(error).toBeInstanceOf(SessionError);
    expect(error).toMatchObject({
      code: "SESSION_STORE_ERROR",
      message: expect.stringMatching(/^MongoDB session lock timed out/),
    });
    await (await lock.acquire(key, { waitMs: 1000 }))();
  });
});
