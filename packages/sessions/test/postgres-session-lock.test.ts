// PostgresSessionLock against a throwaway cluster: two lock instances stand for two replicas
// (separate pools, separate connections), and pg_locks shows who waits.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Client } from "pg";
import { RunAbortedError, SessionBusyError } from "@agentkit/core";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";
import { PostgresSessionLock } from "../src/postgres/index.js";

let cluster: PostgresCluster;
let url: string;
const locks: PostgresSessionLock[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase("locks");
}, 60_000);
afterAll(async () => {
  await Promise.all(locks.map((l) => l.close()));
  await cluster?.stop();
});

function replica(): PostgresSessionLock {
  const lock = new PostgresSessionLock({ connectionString: url });
  locks.push(lock);
  return lock;
}

const key = (sessionId: string) => ({ appName: "app", userId: "u", sessionId });

/** Resolves once `count` advisory-lock requests wait in the server (a condition, not a delay). */
async function waiters(count: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
      );
      if (Number(rows[0]!.n) === count) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await client.end();
  }
}

describe("PostgresSessionLock", () => {
  it("makes a second replica wait for the session until the first releases it; other sessions do not wait", async () => {
    const a = replica();
    const b = replica();
    const releaseA = await a.acquire(key("s1"), { waitMs: 30_000 });
    let bHolds = false;
    const bWaits = b.acquire(key("s1"), { waitMs: 30_000 }).then((release) => {
      bHolds = true;
      return release;
    });
    await waiters(1);
    // Another session is free meanwhile.
    const other = await b.acquire(key("s2"), { waitMs: 30_000 });
    await other();
    expect(bHolds).toBe(false);
    await releaseA();
    const releaseB = await bWaits;
    await releaseB();
    // Released twice is harmless, and the lock is free again.
    await releaseB();
    await (await a.acquire(key("s1"), { waitMs: 1000 }))();
  });

  it("refuses with SessionBusyError past waitMs, and with RunAbortedError when the wait is aborted", async () => {
    const a = replica();
    const b = replica();
    const release = await a.acquire(key("busy"), { waitMs: 1000 });
    await expect(b.acquire(key("busy"), { waitMs: 50 })).rejects.toBeInstanceOf(SessionBusyError);
    await expect(b.acquire(key("busy"), { waitMs: 50 })).rejects.toMatchObject({ code: "SESSION_BUSY" });

    const controller = new AbortController();
    const aborted = b.acquire(key("busy"), { waitMs: 30_000, signal: controller.signal });
    await waiters(1);
    controller.abort(new Error("client left"));
    await expect(aborted).rejects.toBeInstanceOf(RunAbortedError);
    await waiters(0);
    await release();
    await (await b.acquire(key("busy"), { waitMs: 1000 }))();
  });

  it("frees the session when the holding replica's connections go away (a process that dies)", async () => {
    const dying = new PostgresSessionLock({ connectionString: url });
    await dying.acquire(key("crash"), { waitMs: 1000 });
    const b = replica();
    const waiting = b.acquire(key("crash"), { waitMs: 30_000 });
    await waiters(1);
    // Like a killed process: the server ends the holder's backend, and its lock with it.
    const admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()",
    );
    await admin.end();
    await (await waiting)();
    await dying.close();
  });

  it("answers an unreachable database with a typed store error", async () => {
    const lock = new PostgresSessionLock({
      connectionString: cluster.url("locks").replace(/:(\d+)\//, ":1/"),
      poolConfig: { connectionTimeoutMillis: 1000 },
    });
    locks.push(lock);
    await expect(lock.acquire(key("s"), { waitMs: 100 })).rejects.toMatchObject({ code: "SESSION_STORE_UNAVAILABLE" });
  });
});
