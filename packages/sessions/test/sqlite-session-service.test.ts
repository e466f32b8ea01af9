import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError, createEvent, SessionError } from "@agentkit/core";
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
