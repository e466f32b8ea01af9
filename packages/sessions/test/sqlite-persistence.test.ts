import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "@jest/globals";
import { createEvent, eventToJson } from "@agentkit/core";
import { SCHEMA_VERSION, SessionStoreError, SqliteSessionService } from "../src/sqlite/index.js";
import { restartScenario, staleReplicaScenario, twoReplicasScenario } from "./fixtures/session-scenarios.js";
import { upgradedV1Scenario, V1_EVENT_ROWS, V1_STORE_SQL } from "./fixtures/v1-store.js";

const dir = mkdtempSync(join(tmpdir(), "agentkit-sqlite-persist-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WRITER = join(import.meta.dirname, "fixtures", "sqlite-writer.ts");

/** Starts the writer child; resolves its handle and a way to wait for N committed appends. */
function startWriter(path: string, appName: string, sessionId: string, writer: string, count: number) {
  const child = spawn(
    process.execPath,
    ["--conditions=@agentkit/source", "--import", "tsx", WRITER, path, appName, sessionId, writer, String(count)],
    {
      cwd: join(import.meta.dirname, ".."),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let acked = -1;
  let stderr = "";
  let buffer = "";
  const waiters: { n: number; resolve: () => void }[] = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) acked = Number(line.split(" ")[1]);
    for (const w of waiters.filter((w) => acked + 1 >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    acked: () => acked + 1,
    stderr: () => stderr,
    waitFor: (n: number) =>
      Promise.race([
        new Promise<void>((resolve) => (acked + 1 >= n ? resolve() : waiters.push({ n, resolve }))),
        exited.then((code) => {
          throw new Error(`writer exited (${code}) after ${acked + 1} appends: ${stderr}`);
        }),
      ]),
  };
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
    expect({ codes, stderr: writers.map((w) => w.stderr()) }).toEqual({ codes: [0, 0], stderr: ["", ""] });
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
    const stored = (await reopened.getSession({ appName: "crash", userId: "u1", sessionId: "s1" }))!;
    const n = stored.events.length;
    // Every acknowledged append is there; at most the one in flight when killed committed unacknowledged.
    expect(n).toBeGreaterThanOrEqual(acked);
    expect(n).toBeLessThanOrEqual(acked + 1);
    expect(stored.events.map((e) => e.id)).toEqual(Array.from({ length: n }, (_, i) => `W-${i}`));
    stored.events.forEach((e, i) => {
      expect(e.actions.stateDelta).toEqual({ W: i, "app:W": i, "user:W": i, [`W-${i}`]: true });
      expect(e.content?.parts?.[0]?.text).toBe(`W says ${i} ${"x".repeat(i % 200)}`);
    });
    // The state is exactly that of the stored events: no delta without its event, no event without its delta.
    const expectedState: Record<string, unknown> = { W: n - 1, "app:W": n - 1, "user:W": n - 1 };
    for (let i = 0; i < n; i++) expectedState[`W-${i}`] = true;
    expect(stored.state).toEqual(expectedState);
    expect(stored.lastUpdateTime).toBeGreaterThanOrEqual(stored.events[n - 1]!.timestamp);
    // And it takes further writes.
    const next = createEvent({ author: "user", id: "after-crash" });
    await reopened.appendEvent({ session: stored, event: next });
    expect(
      eventToJson(
        (await reopened.getSession({
          appName: "crash",
          userId: "u1",
          sessionId: "s1",
          config: { numRecentEvents: 1 },
        }))!.events[0]!,
      ),
    ).toEqual(eventToJson(next));
    await reopened.close();
  });
});
