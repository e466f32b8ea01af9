import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError, SessionError } from "@agentkit/core";
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
      code: "INVALID_SESSION_REQUEST",
    });
    await expect(service.getSession({ appName: "a", userId: "u", sessionId: "s" })).resolves.toBeUndefined();
    await service.close();
    await service.close();
    const afterClose = service.listSessions({ appName: "a" });
    await expect(afterClose).rejects.toBeInstanceOf(SessionError);
    await expect(afterClose).rejects.toMatchObject({ code: "SESSION_STORE_UNAVAILABLE" });
  });
});
