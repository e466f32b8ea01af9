// PostgresSessionLock against a throwaway cluster: two lock instances stand for two replicas
// (separate pools, separate connections), and pg_locks shows who waits.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Client } from "pg";
import { RunAbortedError, SessionBusyError } from "@agentkit/core";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";
import { PostgresSessionLock } from "../src/postgres/index.js";
import { canReadTcpTable, clientPorts, pendingTimerSeconds } from "./fixtures/tcp-keepalive.js";

let cluster: PostgresCluster;
let url: string;
const locks: PostgresSessionLock[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase("locks");
}, 60_000);
afterAll(async () => {
  // Settled, not all: a lock that fails to close must not leave the cluster running.
  await Promise.allSettled(locks.map((l) => l.close()));
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

/** How many connections the server has with this application_name. */
async function connections(applicationName: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
      [applicationName],
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

/** One query on a connection of its own (not the lock's). */
async function sql<Row extends object>(text: string, params: unknown[] = []): Promise<Row[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** The server process ids of the backends waiting for an advisory lock. */
async function waitingPids(): Promise<number[]> {
  const rows = await sql<{ pid: number }>("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
  return rows.map((row) => row.pid);
}

/** Resolves once `check` holds (a condition, polled), failing after 10 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
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

  it("waits for one of its pool's connections only up to waitMs (SessionBusyError) and stops at an abort", async () => {
    // One connection: a held lock takes it, so a lock on any other session must wait for it.
    const lock = new PostgresSessionLock({
      connectionString: url,
      poolConfig: { max: 1, application_name: "lock-full" },
    });
    locks.push(lock);
    const release = await lock.acquire(key("full-1"), { waitMs: 1000 });
    if (canReadTcpTable) {
      // The held connection has TCP keepalive on (10 s): a server that goes away is noticed.
      const admin = new Client({ connectionString: url });
      await admin.connect();
      const [port] = await clientPorts(admin, "lock-full");
      await admin.end();
      expect(pendingTimerSeconds(port!)).toBeGreaterThan(1);
    }

    let started = performance.now();
    await expect(lock.acquire(key("full-2"), { waitMs: 300 })).rejects.toBeInstanceOf(SessionBusyError);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(250);
    // Far from the pool's own 10 s connectionTimeoutMillis (and its 503 SESSION_STORE_UNAVAILABLE).
    expect(waited).toBeLessThan(5000);

    const controller = new AbortController();
    started = performance.now();
    const aborted = lock.acquire(key("full-3"), { waitMs: 30_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("client left")), 50);
    await expect(aborted).rejects.toBeInstanceOf(RunAbortedError);
    expect(performance.now() - started).toBeLessThan(5000);

    // Nothing leaked: one connection in the server, and the next lock gets it as soon as it is free.
    expect(await connections("lock-full")).toBe(1);
    await release();
    await (await lock.acquire(key("full-2"), { waitMs: 1000 }))();
    expect(await connections("lock-full")).toBe(1);
    await lock.close();
    await until(async () => (await connections("lock-full")) === 0);
  });

  it("waits past the pool's connectionTimeoutMillis when waitMs is longer, and gives a late connection back", async () => {
    const lock = new PostgresSessionLock({
      connectionString: url,
      poolConfig: { max: 1, connectionTimeoutMillis: 200, application_name: "lock-late" },
    });
    locks.push(lock);
    // Aborted while its connection is still being opened: rejects at once, and the connection
    // that comes afterwards goes back to the pool (else the next acquire would never get one).
    const controller = new AbortController();
    const opening = lock.acquire(key("late-1"), { waitMs: 30_000, signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve)); // connecting: a TCP connect and a startup exchange
    controller.abort(new Error("client left"));
    await expect(opening).rejects.toBeInstanceOf(RunAbortedError);
    // The connection did open, after its acquire had given up: it is in the pool, not held.
    await until(async () => (await connections("lock-late")) === 1);

    const release = await lock.acquire(key("late-1"), { waitMs: 5000 });
    // The second run waits for the first one's connection longer than the pool's 200 ms.
    const second = lock.acquire(key("late-2"), { waitMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await release();
    await (await second)();
    expect(await connections("lock-late")).toBe(1);
    await lock.close();
  });

  it("cancels an aborted wait at once while every connection of its pool is out, and reuses the connection", async () => {
    // Two connections, both out: one holds a lock, the other waits for a session another
    // replica holds. Cancelling the wait must not need a third.
    const lock = new PostgresSessionLock({
      connectionString: url,
      poolConfig: { max: 2, application_name: "lock-pool-out" },
    });
    locks.push(lock);
    const other = replica();
    const releaseHeld = await lock.acquire(key("out-held"), { waitMs: 1000 });
    const releaseOther = await other.acquire(key("out-blocked"), { waitMs: 1000 });
    const controller = new AbortController();
    // waitMs far past the test's timeout: only the cancel can end this wait.
    const waiting = lock.acquire(key("out-blocked"), { waitMs: 600_000, signal: controller.signal });
    await waiters(1);
    const [pid] = await waitingPids();

    controller.abort(new Error("client left"));
    // Settles while both connections are still out (nothing here frees one before it does).
    await expect(waiting).rejects.toBeInstanceOf(RunAbortedError);
    // The backend stopped waiting in the server: the rejection came from its cancelled statement.
    expect(await waitingPids()).toEqual([]);
    // Its connection went back to the pool, and the next acquire gets that same one.
    const releaseNext = await lock.acquire(key("out-next"), { waitMs: 1000 });
    const holders = await sql<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $1",
      [pid],
    );
    expect(holders).toHaveLength(1);
    await Promise.all([releaseHeld(), releaseOther(), releaseNext()]);
    await (await lock.acquire(key("out-blocked"), { waitMs: 1000 }))();
    await lock.close();
  });

  it("drops the waiting connection when the cancel itself cannot connect, and still answers the abort at once", async () => {
    // The role may have two connections: with both out, the cancel's own connection is refused.
    await sql("CREATE ROLE lock_limited LOGIN CONNECTION LIMIT 2");
    const lock = new PostgresSessionLock({
      connectionString: url.replace("//postgres@", "//lock_limited@"),
      poolConfig: { max: 2, application_name: "lock-limited" },
    });
    locks.push(lock);
    const other = replica();
    const releaseHeld = await lock.acquire(key("limited-held"), { waitMs: 1000 });
    const releaseOther = await other.acquire(key("limited-blocked"), { waitMs: 1000 });
    const controller = new AbortController();
    const waiting = lock.acquire(key("limited-blocked"), { waitMs: 600_000, signal: controller.signal });
    await waiters(1);
    const [pid] = await waitingPids();
    controller.abort(new Error("client left"));
    await expect(waiting).rejects.toBeInstanceOf(RunAbortedError);

    // The backend does not notice its client left while it waits; once it gets the lock it does,
    // and exits (its lock with it).
    expect(await waitingPids()).toEqual([pid]);
    await releaseOther();
    await until(async () => (await sql("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).length === 0);
    // The slot is free again: a new connection takes the session.
    await (await lock.acquire(key("limited-blocked"), { waitMs: 5000 }))();
    await releaseHeld();
    await lock.close();
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
