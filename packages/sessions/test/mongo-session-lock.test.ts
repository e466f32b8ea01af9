// MongoSessionLock through the official driver against the wire-protocol test server: two lock
// instances (two clients) stand for two replicas.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { MongoClient } from "mongodb";
import { RunAbortedError, SessionBusyError } from "@agentkit/core";
import { SessionQueueKey } from "@agentkit/core/internal";
import { MongoWireServer } from "@agentkit/test-support/mongodb";
import { MongoSessionLock, SESSION_LOCK_COLLECTION } from "../src/mongodb/index.js";

let server: MongoWireServer;
let client: MongoClient;
const locks: MongoSessionLock[] = [];

beforeAll(async () => {
  server = await MongoWireServer.start();
  client = new MongoClient(server.uri);
  await client.connect();
});
afterAll(async () => {
  await Promise.all(locks.map((l) => l.close()));
  await client?.close();
  await server?.close();
});

function replica(leaseMs?: number): MongoSessionLock {
  const lock = new MongoSessionLock({ uri: server.uri, dbName: "locks", ...(leaseMs ? { leaseMs } : {}) });
  locks.push(lock);
  return lock;
}

const key = (sessionId: string) => ({ appName: "app", userId: "u", sessionId });
const leases = () =>
  client.db("locks").collection<{ _id: string; owner: string; expiresAt: Date }>(SESSION_LOCK_COLLECTION);

describe("MongoSessionLock", () => {
  it("makes a second replica wait for the session until the first releases it; other sessions do not wait", async () => {
    const a = replica();
    const b = replica();
    const releaseA = await a.acquire(key("s1"), { waitMs: 30_000 });
    const holder = await leases().findOne({ _id: SessionQueueKey.of(key("s1")) });
    let bHolds = false;
    const bWaits = b.acquire(key("s1"), { waitMs: 30_000 }).then((release) => {
      bHolds = true;
      return release;
    });
    await (await b.acquire(key("s2"), { waitMs: 1000 }))();
    expect(bHolds).toBe(false);
    expect((await leases().findOne({ _id: SessionQueueKey.of(key("s1")) }))?.owner).toBe(holder?.owner);
    await releaseA();
    const releaseB = await bWaits;
    await releaseB();
    await releaseB();
    expect(await leases().countDocuments({})).toBe(0);
  });

  it("refuses with SessionBusyError past waitMs, and with RunAbortedError when the wait is aborted", async () => {
    const a = replica();
    const b = replica();
    const release = await a.acquire(key("busy"), { waitMs: 1000 });
    await expect(b.acquire(key("busy"), { waitMs: 30 })).rejects.toBeInstanceOf(SessionBusyError);
    const controller = new AbortController();
    const aborted = b.acquire(key("busy"), { waitMs: 30_000, signal: controller.signal });
    controller.abort(new Error("client left"));
    await expect(aborted).rejects.toBeInstanceOf(RunAbortedError);
    await release();
    await (await b.acquire(key("busy"), { waitMs: 1000 }))();
  });

  it("takes over the lease of a replica that died (expired), and renews its own while held", async () => {
    await leases().insertOne({
      _id: SessionQueueKey.of(key("crash")),
      owner: "dead",
      expiresAt: new Date(Date.now() - 1),
    });
    const b = replica(300);
    const release = await b.acquire(key("crash"), { waitMs: 1000 });
    const first = await leases().findOne({ _id: SessionQueueKey.of(key("crash")) });
    expect(first?.owner).not.toBe("dead");
    // Renewed every leaseMs / 3: poll the document until its expiry moves.
    for (;;) {
      const now = await leases().findOne({ _id: SessionQueueKey.of(key("crash")) });
      if (now!.expiresAt.getTime() > first!.expiresAt.getTime()) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await release();
  });
});
