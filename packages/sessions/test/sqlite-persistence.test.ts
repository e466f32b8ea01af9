import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "@jest/globals";
import { createEvent } from "@agentkit/core";
import { SCHEMA_VERSION, SessionStoreError, SqliteSessionService } from "../src/sqlite/index.js";
import { restartScenario, staleReplicaScenario, twoReplicasScenario } from "./fixtures/session-scenarios.js";
import { expectIntactAfterKilledWriter } from "./fixtures/crash-checks.js";
import { upgradedV1Scenario, V1_EVENT_ROWS, V1_STORE_SQL } from "./fixtures/v1-store.js";
import { startWriterProcess, stopWriters, type WriterProcess } from "./fixtures/writer-process.js";

const dir = mkdtempSync(join(tmpdir(), "agentkit-sqlite-persist-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WRITER = join(import.meta.dirname, "fixtures", "sql-writer.ts");
const children: WriterProcess[] = [];
afterAll(() => stopWriters(children));

function startWriter(path: string, appName: string, sessionId: string, writer: string, count: number): WriterProcess {
  const w = startWriterProcess(WRITER, ["sqlite", path, appName, sessionId, writer, String(count)]);
  children.push(w);
  return w;
}

/** Writes the version 1 store of fixtures/v1-store.ts into a new SQLite file. */
function createV1Store(path: string): void {
  const db = new DatabaseSync(path);
  db.exec(V1_STORE_SQL);
  const insert = db.prepare("INSERT INTO agentkit_events VALUES ('old', 'u1', 's1', ?, ?, ?, ?)");
  for (const row of V1_EVENT_ROWS) insert.run(...row);
  db.close();
}

describe("SqliteSessionService persistence", () => {
  it("reads everything back through a new instance on the same file (restart)", async () => {
    const path = join(dir, "restart.db");
    await restartScenario(
      new SqliteSessionService({ path }),
      () => SqliteSessionService.fromUri(`sqlite://${path}`),
      "restart-app",
    );
  });

  it("opens a version 1 store, upgrades it in place and keeps every session, event and shared state", async () => {
    const path = join(dir, "v1.db");
    createV1Store(path);
    await upgradedV1Scenario(new SqliteSessionService({ path }));

    const db = new DatabaseSync(path);
    expect(
      db
        .prepare("SELECT version FROM agentkit_schema_version ORDER BY version")
        .all()
        .map((r) => r.version),
    ).toEqual([1, 2]);
    expect(db.prepare("SELECT id, format_version FROM agentkit_events ORDER BY seq").all()).toEqual([
      { id: "old-1", format_version: 1 },
      { id: "old-2", format_version: 1 },
      { id: "new-1", format_version: 1 },
    ]);
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'agentkit_events_by_time'").all(),
    ).toHaveLength(1);
    db.close();

    // Opening again is a no-op.
    const again = new SqliteSessionService({ path });
    expect(await again.initialize()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    expect((await again.getSession({ appName: "old", userId: "u1", sessionId: "s1" }))?.state.count).toBe(3);
    await again.close();
  });

  it("refuses a store written by a newer agentkit and an event in an unknown format, with SESSION_STORE_TOO_NEW", async () => {
    const path = join(dir, "newer.db");
    const service = new SqliteSessionService({ path });
    const s = await service.createSession({ appName: "a", userId: "u1", sessionId: "s1" });
    await service.appendEvent({ session: s, event: createEvent({ author: "user" }) });
    await service.close();
    const db = new DatabaseSync(path);
    db.exec("UPDATE agentkit_events SET format_version = 99");
    db.close();
    const reader = new SqliteSessionService({ path });
    await expect(reader.getSession({ appName: "a", userId: "u1", sessionId: "s1" })).rejects.toMatchObject({
      code: "SESSION_STORE_TOO_NEW",
    });
    await reader.close();

    const db2 = new DatabaseSync(path);
    db2.exec(`INSERT INTO agentkit_schema_version VALUES (${SCHEMA_VERSION + 1}, 1800000000)`);
    db2.close();
    const newer = new SqliteSessionService({ path });
    const attempt = newer.listSessions({ appName: "a" });
    await expect(attempt).rejects.toBeInstanceOf(SessionStoreError);
    await expect(attempt).rejects.toMatchObject({ code: "SESSION_STORE_TOO_NEW" });
    await newer.close();
  });

  it("reports a corrupt event row as SESSION_STORE_CORRUPT instead of crashing", async () => {
    const path = join(dir, "corrupt.db");
    const service = new SqliteSessionService({ path });
    const s = await service.createSession({ appName: "a", userId: "u1", sessionId: "s1" });
    await service.appendEvent({ session: s, event: createEvent({ author: "user" }) });
    const db = new DatabaseSync(path);
    db.exec("UPDATE agentkit_events SET event_json = '{not json'");
    db.close();
    await expect(service.getSession({ appName: "a", userId: "u1", sessionId: "s1" })).rejects.toMatchObject({
      code: "SESSION_STORE_CORRUPT",
    });
    await service.close();
  });
});

describe("SqliteSessionService with several writers", () => {
  it("rejects the stale one of two instances on one file", async () => {
    const path = join(dir, "stale.db");
    const a = new SqliteSessionService({ path });
    const b = new SqliteSessionService({ path });
    await staleReplicaScenario(a, b, "stale-app");
    await Promise.all([a.close(), b.close()]);
  });

  it("loses no event when two instances on one file append to one session concurrently", async () => {
    const path = join(dir, "replicas.db");
    const a = new SqliteSessionService({ path });
    const b = new SqliteSessionService({ path });
    const { staleErrors } = await twoReplicasScenario(a, b, "replicas-app", 60);
    expect(staleErrors).toBeGreaterThan(0);
    await Promise.all([a.close(), b.close()]);
  });

  it("fails a write with a clear SessionStoreError when another connection holds the lock past busyTimeoutMs", async () => {
    const path = join(dir, "busy.db");
    const service = new SqliteSessionService({ path, busyTimeoutMs: 50 });
    const s = await service.createSession({ appName: "busy", userId: "u1", sessionId: "s1" });
    const holder = new DatabaseSync(path);
    holder.exec("BEGIN IMMEDIATE");
    const attempt = service.appendEvent({ session: s, event: createEvent({ author: "user", id: "blocked" }) });
    await expect(attempt).rejects.toBeInstanceOf(SessionStoreError);
    await expect(attempt).rejects.toThrow(/busyTimeoutMs \(50 ms\)/);
    holder.exec("ROLLBACK");
    holder.close();
    // Once the lock is released the same copy can write: the failed attempt stored nothing.
    await service.appendEvent({ session: s, event: createEvent({ author: "user", id: "after" }) });
    expect(
      (await service.getSession({ appName: "busy", userId: "u1", sessionId: "s1" }))?.events.map((e) => e.id),
    ).toEqual(["after"]);
    await service.close();
  });

  it("loses no event when two processes append to one session of one file", async () => {
    const path = join(dir, "processes.db");
    const setup = new SqliteSessionService({ path });
    await setup.createSession({ appName: "procs", userId: "u1", sessionId: "s1" });
    const writers = [startWriter(path, "procs", "s1", "P", 150), startWriter(path, "procs", "s1", "Q", 150)];
    const codes = await Promise.all(writers.map((w) => w.exited));
    expect(codes).toEqual([0, 0]);
    // Nothing on stderr but the writer's count of reloads.
    for (const w of writers) expect(w.stderr()).toMatch(/^stale \d+\n$/);
    const stored = (await setup.getSession({ appName: "procs", userId: "u1", sessionId: "s1" }))!;
    expect(stored.events).toHaveLength(300);
    for (const name of ["P", "Q"]) {
      expect(stored.events.filter((e) => e.author === name).map((e) => e.id)).toEqual(
        Array.from({ length: 150 }, (_, i) => `${name}-${i}`),
      );
      expect(stored.state[name]).toBe(149);
      expect(stored.state[`app:${name}`]).toBe(149);
    }
    await setup.close();
  });
});

describe("SqliteSessionService crash safety", () => {
  it("opens consistent after the writing process is killed mid-append: every event with its state", async () => {
    const path = join(dir, "crash.db");
    const setup = new SqliteSessionService({ path });
    await setup.createSession({ appName: "crash", userId: "u1", sessionId: "s1" });
    await setup.close();

    const writer = startWriter(path, "crash", "s1", "W", 1_000_000);
    await writer.waitFor(300);
    writer.child.kill("SIGKILL");
    expect(await writer.exited).toBeNull();
    const acked = writer.acked();

    const db = new DatabaseSync(path);
    expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    db.close();

    const reopened = new SqliteSessionService({ path });
    await expectIntactAfterKilledWriter(reopened, acked);
    await reopened.close();
  });
});
