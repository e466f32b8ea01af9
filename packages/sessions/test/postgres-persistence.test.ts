import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createEvent } from "@agentkit/core";
import { Client, Pool } from "pg";
import { PostgresSessionService, SCHEMA_VERSION } from "../src/postgres/index.js";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";
import { restartScenario, staleReplicaScenario, twoReplicasScenario } from "./fixtures/session-scenarios.js";
import { upgradedV1Scenario, V1_EVENT_ROWS, V1_STORE_SQL } from "./fixtures/v1-store.js";

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

/** Resolves once `n` backends of the cluster wait for a lock (polls pg_stat_activity; no deadline of its own). */
async function lockWaiters(url: string, n: number): Promise<void> {
  await withClient(url, async (c) => {
    for (;;) {
      const { rows } = await c.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
      );
      if (rows[0]!.n >= n) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  });
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Writes the version 1 store of fixtures/v1-store.ts into the database. */
async function createV1Store(url: string): Promise<void> {
  await withClient(url, async (c) => {
    await c.query(V1_STORE_SQL);
    for (const row of V1_EVENT_ROWS) {
      await c.query("INSERT INTO agentkit_events VALUES ('old', 'u1', 's1', $1, $2, $3, $4)", [...row]);
    }
  });
}

describe("PostgresSessionService persistence", () => {
  it("reads everything back through a new instance on the same database (restart)", async () => {
    const url = await cluster.createDatabase("restart");
    await restartScenario(
      new PostgresSessionService({ connectionString: url }),
      () => PostgresSessionService.fromUri(url),
      "restart-app",
    );
  });

  it("opens a version 1 store, upgrades it in place and keeps every session, event and shared state", async () => {
    const url = await cluster.createDatabase("v1");
    await createV1Store(url);
    await upgradedV1Scenario(PostgresSessionService.fromUri(url));
    await withClient(url, async (c) => {
      expect(
        (await c.query("SELECT version FROM agentkit_schema_version ORDER BY version")).rows.map((r) => r.version),
      ).toEqual([1, 2]);
      expect((await c.query("SELECT id, format_version FROM agentkit_events ORDER BY seq")).rows).toEqual([
        { id: "old-1", format_version: 1 },
        { id: "old-2", format_version: 1 },
        { id: "new-1", format_version: 1 },
      ]);
      expect(
        (await c.query("SELECT indexname FROM pg_indexes WHERE indexname = 'agentkit_events_by_time'")).rowCount,
      ).toBe(1);
    });
  });

  it("migrates once when several instances start at the same time", async () => {
    const url = await cluster.createDatabase("concurrent_start");
    const services = Array.from({ length: 4 }, () => PostgresSessionService.fromUri(url));
    const results = await Promise.all(services.map((s) => s.initialize()));
    expect(results.filter((r) => r.from === 0)).toHaveLength(1);
    expect(results.every((r) => r.to === SCHEMA_VERSION)).toBe(true);
    await Promise.all(services.map((s) => s.close()));
  });

  it("refuses a store written by a newer agentkit with SESSION_STORE_TOO_NEW", async () => {
    const url = await cluster.createDatabase("newer");
    const first = PostgresSessionService.fromUri(url);
    await first.initialize();
    await first.close();
    await withClient(url, (c) =>
      c.query(`INSERT INTO agentkit_schema_version VALUES (${SCHEMA_VERSION + 1}, 1800000000)`),
    );
    const newer = PostgresSessionService.fromUri(url);
    await expect(newer.listSessions({ appName: "a" })).rejects.toMatchObject({ code: "SESSION_STORE_TOO_NEW" });
    await newer.close();
  });
});

describe("PostgresSessionService with two replicas", () => {
  let url: string;
  beforeAll(async () => {
    url = await cluster.createDatabase("replicas");
  });

  it("rejects the stale one of two instances on one database", async () => {
    const a = PostgresSessionService.fromUri(url);
    const b = PostgresSessionService.fromUri(url);
    await staleReplicaScenario(a, b, "stale-app");
    await Promise.all([a.close(), b.close()]);
  });

  it("loses no event when two instances append to one session concurrently", async () => {
    const a = PostgresSessionService.fromUri(url);
    const b = PostgresSessionService.fromUri(url);
    const { staleErrors } = await twoReplicasScenario(a, b, "replicas-app", 60);
    expect(staleErrors).toBeGreaterThan(0);
    await Promise.all([a.close(), b.close()]);
  });

  it("serializes writers on the session row: a writer blocked behind a row lock sees the new version and is stale", async () => {
    const a = PostgresSessionService.fromUri(url);
    const key = { appName: "lock-app", userId: "u1", sessionId: "s1" };
    await a.createSession(key);
    const copy = (await a.getSession(key))!;
    // Another replica holds the session row locked (mid-append) and then commits a newer version.
    const pool = new Pool({ connectionString: url, max: 1 });
    const other = await pool.connect();
    await other.query("BEGIN");
    await other.query("SELECT 1 FROM agentkit_sessions WHERE app_name = $1 AND user_id = $2 AND id = $3 FOR UPDATE", [
      key.appName,
      key.userId,
      key.sessionId,
    ]);
    let settled = false;
    const blocked = a.appendEvent({ session: copy, event: createEvent({ author: "user", id: "late" }) });
    void blocked.then(
      () => (settled = true),
      () => (settled = true),
    );
    await lockWaiters(url, 1); // the append waits for the row lock
    expect(settled).toBe(false);
    await other.query(
      "UPDATE agentkit_sessions SET last_update_time = last_update_time + 1 WHERE app_name = $1 AND id = $2",
      [key.appName, key.sessionId],
    );
    await other.query("COMMIT");
    other.release();
    await pool.end();
    await expect(blocked).rejects.toMatchObject({ code: "STALE_SESSION" });
    expect((await a.getSession(key))?.events).toEqual([]);
    await a.close();
  });

  it("deletes a session while another replica is appending to it without leaving an orphan event", async () => {
    const a = PostgresSessionService.fromUri(url);
    const key = { appName: "delete-app", userId: "u1", sessionId: "s1" };
    await a.createSession(key);
    // The other replica is mid-append: session row locked, its event inserted, not committed yet.
    const pool = new Pool({ connectionString: url, max: 1 });
    const other = await pool.connect();
    await other.query("BEGIN");
    await other.query("SELECT 1 FROM agentkit_sessions WHERE app_name = $1 AND user_id = $2 AND id = $3 FOR UPDATE", [
      key.appName,
      key.userId,
      key.sessionId,
    ]);
    await other.query(
      "INSERT INTO agentkit_events (app_name, user_id, session_id, seq, id, event_time, event_json) VALUES ($1, $2, " +
        "$3, 1, 'e1', 1, '{}')",
      [key.appName, key.userId, key.sessionId],
    );
    const deleting = a.deleteSession(key);
    await lockWaiters(url, 1); // the delete waits for the row lock
    await other.query("COMMIT");
    other.release();
    await deleting;
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM agentkit_events WHERE app_name = $1", [
      key.appName,
    ]);
    expect(rows[0].n).toBe(0);
    await pool.end();
    await a.close();
  });

  it("keeps shared app state complete when many sessions append concurrently", async () => {
    const services = [PostgresSessionService.fromUri(url), PostgresSessionService.fromUri(url)];
    const sessions = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        services[i % 2]!.createSession({ appName: "shared-app", userId: `u${i % 3}`, sessionId: `s${i}` }),
      ),
    );
    await Promise.all(
      sessions.map((session, i) =>
        services[i % 2]!.appendEvent({
          session,
          event: createEvent({ author: "agent", actions: { stateDelta: { [`app:k${i}`]: i, [`user:k${i}`]: i } } }),
        }),
      ),
    );
    const state = (await services[0]!.getSession({ appName: "shared-app", userId: "u0", sessionId: "s0" }))!.state;
    for (let i = 0; i < 10; i++) expect(state[`app:k${i}`]).toBe(i);
    expect(
      Object.keys(state)
        .filter((k) => k.startsWith("user:"))
        .sort(),
    ).toEqual(["user:k0", "user:k3", "user:k6", "user:k9"]);
    await Promise.all(services.map((s) => s.close()));
  });
});
