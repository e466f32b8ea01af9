import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError, createEvent, SessionError } from "@agentkit/core";
import { OVER_LOG_FROM, sessionEvents } from "@agentkit/core/internal";
import { SessionStoreError, SqliteSessionService, sqlitePathFromUri } from "../src/sqlite/index.js";
import { runSessionServiceContract } from "../src/testing/index.js";

// The contract suites register their tests with jest's functions.
const testApi = { describe, it, expect, beforeEach, afterEach };

const dir = mkdtempSync(join(tmpdir(), "agentkit-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// One file shared by every test (each test uses its own app name), as a server would use it.
runSessionServiceContract(
  "SqliteSessionService (file)",
  async () => ({ service: new SqliteSessionService({ path: join(dir, "contract.db") }) }),
  testApi,
  {
    manyEvents: 2000,
  },
);
runSessionServiceContract(
  "SqliteSessionService (:memory:)",
  async () => ({
    service: SqliteSessionService.fromUri("sqlite::memory:"),
  }),
  testApi,
);

describe("SqliteSessionService reads only what was appended since its last read", () => {
  const event = (id: string) =>
    createEvent({ id, invocationId: "e", author: "a", content: { role: "model", parts: [{ text: id }] } });

  it("sees appends by another connection, shares frozen events, and re-reads a re-created session", async () => {
    const path = join(dir, "cache.db");
    const reader = new SqliteSessionService({ path });
    const writer = new SqliteSessionService({ path });
    const key = { appName: "cache", userId: "u", sessionId: "s" };
    let session = await writer.createSession(key);
    for (const id of ["e1", "e2"]) await writer.appendEvent({ session, event: event(id) });
    const first = (await reader.getSession(key))!;
    expect(first.events.map((e) => e.id)).toEqual(["e1", "e2"]);
    expect(Object.isFrozen(first.events[0])).toBe(true);
    await writer.appendEvent({ session, event: event("e3") });
    const second = (await reader.getSession(key))!;
    expect(second.events.map((e) => e.id)).toEqual(["e1", "e2", "e3"]);
    expect(second.events[0]).toBe(first.events[0]); // shared, not parsed again
    expect(second.events).not.toBe(first.events);
    second.events.push(event("local")); // a caller's array is its own
    expect((await reader.getSession(key))!.events).toHaveLength(3);

    await writer.deleteSession(key);
    session = await writer.createSession(key);
    for (const id of ["n1", "n2", "n3"]) await writer.appendEvent({ session, event: event(id) });
    expect((await reader.getSession(key))!.events.map((e) => e.id)).toEqual(["n1", "n2", "n3"]);
    await writer.deleteSession(key);
    expect(await reader.getSession(key)).toBeUndefined();
    await Promise.all([reader.close(), writer.close()]);
  });

  it("keeps its own appends as a read of the stored row gives them: frozen, the caller's event left alone", async () => {
    const path = join(dir, "write-through.db");
    const service = new SqliteSessionService({ path });
    const other = new SqliteSessionService({ path });
    const key = { appName: "cache", userId: "u", sessionId: "w" };
    const created = await service.createSession(key);
    await service.appendEvent({ session: created, event: event("e0") });
    const session = (await service.getSession(key))!; // the cache now holds [e0]
    const mine = event("m1");
    mine.customMetadata = { note: undefined, kept: "yes" };
    await service.appendEvent({ session, event: mine });
    const read = (await service.getSession(key))!;
    // Exactly what a read of the stored row gives (undefined dropped), frozen, and not the caller's object.
    expect(read.events.map((e) => e.id)).toEqual(["e0", "m1"]);
    expect(read.events[1]).not.toBe(mine);
    expect(Object.isFrozen(read.events[1]) && Object.isFrozen(read.events[1]!.content!.parts![0])).toBe(true);
    expect(JSON.stringify(read.events)).toBe(JSON.stringify((await other.getSession(key))!.events));
    expect(read.events[1]!.customMetadata).toEqual({ kept: "yes" });
    expect((await service.getSession(key))!.events[1]).toBe(read.events[1]);
    // The caller's event is untouched and stays its own.
    expect(Object.isFrozen(mine)).toBe(false);
    expect(Object.hasOwn(mine.customMetadata!, "note")).toBe(true);

    // Another writer's event in between: this process's next append does not join the cache, the read fetches both.
    const theirs = (await other.getSession(key))!;
    await other.appendEvent({ session: theirs, event: event("o1") });
    const stale = (await service.getSession(key))!;
    await service.appendEvent({ session: stale, event: event("m2") });
    expect((await service.getSession(key))!.events.map((e) => e.id)).toEqual(["e0", "m1", "o1", "m2"]);
    expect((await other.getSession(key))!.events.map((e) => e.id)).toEqual(["e0", "m1", "o1", "m2"]);
    await Promise.all([service.close(), other.close()]);
  });

  it("hands a read the cache's list without copying it, which the reader's own appends extend", async () => {
    const path = join(dir, "over-log.db");
    const service = new SqliteSessionService({ path });
    const key = { appName: "cache", userId: "u", sessionId: "o" };
    const created = await service.createSession(key);
    // A long history: a shorter one is simply copied (OVER_LOG_FROM).
    for (let i = 1; i < OVER_LOG_FROM; i++) await service.appendEvent({ session: created, event: event(`p${i}`) });
    await service.appendEvent({ session: created, event: event("e0") });
    const tail = (events: readonly { id: string }[]) => events.slice(OVER_LOG_FROM - 1).map((e) => e.id);
    const a = (await service.getSession(key))!;
    const b = (await service.getSession(key))!;
    // One list for both reads (the cache's), not a copy each.
    expect(sessionEvents(a)).toBe(sessionEvents(b));
    const mine = event("m1");
    await service.appendEvent({ session: a, event: mine });
    expect(tail(sessionEvents(a))).toEqual(["e0", "m1"]);
    expect(a.events.at(-1)).toBe(mine); // the caller's list holds the caller's event
    // b was read before m1: it now answers with its own copy, without m1, and its append is stale.
    expect(tail(sessionEvents(b))).toEqual(["e0"]);
    await expect(service.appendEvent({ session: b, event: event("late") })).rejects.toThrow(SessionError);
    expect(tail(b.events)).toEqual(["e0"]);
    expect(tail((await service.getSession(key))!.events)).toEqual(["e0", "m1"]);
    await service.close();
  });

  it("reads racing each other and an append never duplicate or lose events", async () => {
    const path = join(dir, "racing.db");
    const service = new SqliteSessionService({ path });
    const writer = new SqliteSessionService({ path });
    const key = { appName: "cache", userId: "u", sessionId: "r" };
    let session = await writer.createSession(key);
    await writer.appendEvent({ session, event: event("a1") });
    await service.getSession(key);
    const ids = ["a1"];
    for (let round = 0; round < 5; round++) {
      // Another connection appends, then this service reads the same tail several times at once
      // while it appends too: each read starts from the same cached entry.
      session = (await writer.getSession(key))!;
      await writer.appendEvent({ session, event: event(`b${round}`) });
      ids.push(`b${round}`);
      await service.getSession(key); // the cache now ends at b{round}
      await writer.appendEvent({ session, event: event(`c${round}`) });
      ids.push(`c${round}`);
      const reads = [service.getSession(key), service.getSession(key)];
      const latest = (await service.getSession(key))!;
      await service.appendEvent({ session: latest, event: event(`d${round}`) });
      ids.push(`d${round}`);
      for (const read of await Promise.all([...reads, service.getSession(key), service.getSession(key)])) {
        const got = read!.events.map((e) => e.id);
        expect(new Set(got).size).toBe(got.length);
        expect(ids.slice(0, got.length)).toEqual(got);
      }
      expect((await service.getSession(key))!.events.map((e) => e.id)).toEqual(ids);
    }
    await Promise.all([service.close(), writer.close()]);
  });

  it("refuses an unknown synchronous setting", () => {
    expect(() => new SqliteSessionService({ path: join(dir, "sync.db"), synchronous: "OFF" as "FULL" })).toThrow(
      ConfigurationError,
    );
  });
});

describe("SqliteSessionService options and URIs", () => {
  it("maps sqlite:///abs/path to an absolute path, decoding escapes", () => {
    expect(sqlitePathFromUri("sqlite:///var/data/sessions.db")).toBe("/var/data/sessions.db");
    expect(sqlitePathFromUri("sqlite:///tmp/my%20dir/s.db")).toBe("/tmp/my dir/s.db");
    expect(sqlitePathFromUri("sqlite://:memory:")).toBe(":memory:");
  });

  it("rejects URIs that are not an absolute sqlite file path with ConfigurationError", () => {
    for (const bad of ["sqlite://relative/s.db", "postgres://x/y", "sqlite:///tmp/dir/", "not a uri"]) {
      expect(() => sqlitePathFromUri(bad)).toThrow(ConfigurationError);
    }
    expect(() => new SqliteSessionService({ path: "" })).toThrow(ConfigurationError);
    expect(() => new SqliteSessionService({ path: join(dir, "x.db"), busyTimeoutMs: -1 })).toThrow(ConfigurationError);
  });

  it("creates the file's directory, uses WAL mode and survives fromUri", async () => {
    const path = join(dir, "nested", "deeper", "s.db");
    const service = SqliteSessionService.fromUri(`sqlite://${path}`);
    expect(service.path).toBe(path);
    await service.createSession({ appName: "a", userId: "u", sessionId: "s" });
    await service.close();
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(path);
    expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    db.close();
  });

  it("fails to open an unusable path with SessionStoreError SESSION_STORE_UNAVAILABLE", () => {
    const file = join(dir, "plain-file");
    writeFileSync(file, "not a directory");
    const attempt = () => new SqliteSessionService({ path: join(file, "s.db") });
    expect(attempt).toThrow(SessionStoreError);
    try {
      attempt();
    } catch (error) {
      expect((error as SessionStoreError).code).toBe("SESSION_STORE_UNAVAILABLE");
    }
  });

  it("rejects empty keys with a typed error and refuses work after close", async () => {
    const service = new SqliteSessionService({ path: ":memory:" });
    await expect(service.getSession({ appName: "", userId: "u", sessionId: "s" })).rejects.toMatchObject({
      code: "INVALID_SESSION_KEY",
    });
    await expect(service.getSession({ appName: "a", userId: "u", sessionId: "s" })).resolves.toBeUndefined();
    await service.close();
    await service.close();
    const afterClose = service.listSessions({ appName: "a" });
    await expect(afterClose).rejects.toBeInstanceOf(SessionError);
    await expect(afterClose).rejects.toMatchObject({ code: "SESSION_STORE_UNAVAILABLE" });
  });
});
