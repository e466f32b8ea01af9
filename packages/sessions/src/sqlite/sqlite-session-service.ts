import { mkdirSync } from "node:fs";
import { dirname, isAbsolute } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { ConfigurationError } from "@agentkit/core";
import { SessionStoreError } from "../sql/session-store-error.js";
import type { SqlDialect, SqlPlan, SqlResult, SqlStatement } from "../sql/sql-plan.js";
import { SqlSessionService, type SqlPlanMode } from "../sql/sql-session-service.js";

export interface SqliteSessionServiceOptions {
  /** Database file (its directory is created when missing), or ":memory:" for a private in-memory store. */
  path: string;
  /** How long a write waits for another connection's write lock before failing, in ms (default 5000). */
  busyTimeoutMs?: number;
  /**
   * SQLite's `synchronous` setting. `"NORMAL"` (default): in WAL mode a committed append survives
   * a crash of the process (kill -9) and of the server process alike; a power loss or an OS
   * crash may lose the last transactions (never corrupt the file). `"FULL"`: every commit is
   * fsynced, so it survives a power loss too, at several times the cost of an append.
   */
  synchronous?: "NORMAL" | "FULL";
}

/** SQLite's result code for "database is locked". */
const SQLITE_BUSY = 5;

const SQLITE_DIALECT: SqlDialect = { name: "sqlite", forUpdate: "", migrationLock: undefined };

/**
 * Sessions in a SQLite file through `node:sqlite`: the embedded default that survives restarts.
 * WAL mode (readers never block the writer), a busy timeout for writers from other processes,
 * and every write in a `BEGIN IMMEDIATE` transaction that takes the write lock up front, so
 * concurrent writers (other instances, other processes) queue instead of interleaving.
 * Transactions run synchronously from start to commit, never across an `await`.
 */
export class SqliteSessionService extends SqlSessionService {
  /** The database file, or ":memory:". */
  readonly path: string;
  private readonly db: DatabaseSync;
  private readonly busyTimeoutMs: number;
  private readonly statements = new Map<string, StatementSync>();

  constructor(options: SqliteSessionServiceOptions) {
    super(SQLITE_DIALECT);
    if (typeof options?.path !== "string" || options.path.trim() === "") {
      throw new ConfigurationError('SqliteSessionService needs { path }: a database file path or ":memory:".');
    }
    const busy = options.busyTimeoutMs ?? 5000;
    if (!Number.isInteger(busy) || busy < 0)
      throw new ConfigurationError(`busyTimeoutMs must be a non-negative integer, got ${busy}.`);
    const synchronous = options.synchronous ?? "NORMAL";
    if (synchronous !== "NORMAL" && synchronous !== "FULL") {
      throw new ConfigurationError(`synchronous must be "NORMAL" or "FULL", got ${JSON.stringify(synchronous)}.`);
    }
    this.path = options.path;
    this.busyTimeoutMs = busy;
    try {
      if (this.path !== ":memory:") mkdirSync(dirname(this.path), { recursive: true });
      this.db = new DatabaseSync(this.path, { timeout: busy });
      if (this.path !== ":memory:") this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec(`PRAGMA synchronous = ${synchronous}`);
      this.db.exec(`PRAGMA busy_timeout = ${busy}`);
    } catch (cause) {
      throw new SessionStoreError(
        "SESSION_STORE_UNAVAILABLE",
        `Cannot open the SQLite session store ${this.path}: ${(cause as Error).message}`,
        { cause },
      );
    }
  }

  /**
   * From a `sqlite:` URI: `sqlite:///abs/dir/sessions.db` (an absolute path, URL rules),
   * `sqlite://:memory:` or `sqlite::memory:`.
   */
  static fromUri(uri: string, options: Omit<SqliteSessionServiceOptions, "path"> = {}): SqliteSessionService {
    return new SqliteSessionService({ ...options, path: sqlitePathFromUri(uri) });
  }

  protected override async runPlan<T>(plan: SqlPlan<T>, mode: SqlPlanMode): Promise<T> {
    if (!this.db.isOpen)
      throw new SessionStoreError("SESSION_STORE_UNAVAILABLE", `The SQLite session store ${this.path} is closed.`);
    return this.runSync(plan, mode);
  }

  protected override async closeDriver(): Promise<void> {
    this.statements.clear();
    if (this.db.isOpen) this.db.close();
  }

  protected override describeStore(): string {
    return this.path;
  }

  /** The whole transaction in one synchronous stretch: nothing else in this thread runs in between. */
  private runSync<T>(plan: SqlPlan<T>, mode: SqlPlanMode): T {
    // A read transaction gives one snapshot across its statements, even with writers in other processes.
    try {
      this.db.exec(mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN");
      let step = plan.next();
      while (!step.done) step = plan.next(this.run(step.value));
      this.db.exec("COMMIT");
      return step.value;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      if ((error as { errcode?: unknown }).errcode === SQLITE_BUSY) {
        throw new SessionStoreError(
          "SESSION_STORE_ERROR",
          `The SQLite session store ${this.path} stayed locked by another writer for longer than busyTimeoutMs ` +
            `(${this.busyTimeoutMs} ms); retry, or raise busyTimeoutMs.`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  private run(statement: SqlStatement): SqlResult {
    let prepared = this.statements.get(statement.text);
    if (!prepared) {
      prepared = this.db.prepare(statement.text);
      this.statements.set(statement.text, prepared);
    }
    if (prepared.columns().length > 0) return { rows: prepared.all(...statement.params), changes: 0 };
    return { rows: [], changes: Number(prepared.run(...statement.params).changes) };
  }
}

/** The file path a `sqlite:` URI names. */
export function sqlitePathFromUri(uri: string): string {
  if (typeof uri !== "string")
    throw new ConfigurationError("A SQLite session URI must be a string like sqlite:///abs/path/sessions.db.");
  if (uri === "sqlite::memory:" || uri === "sqlite://:memory:") return ":memory:";
  let url: URL;
  try {
    url = new URL(uri);
  } catch (cause) {
    throw new ConfigurationError(
      `Invalid SQLite session URI ${JSON.stringify(uri)}: expected sqlite:///abs/path/sessions.db.`,
      { cause },
    );
  }
  if (url.protocol !== "sqlite:")
    throw new ConfigurationError(`Not a SQLite URI: ${JSON.stringify(uri)} (expected sqlite:///abs/path/sessions.db).`);
  if (url.host !== "") {
    throw new ConfigurationError(
      `SQLite URI ${JSON.stringify(uri)} names a host ("${url.host}"); use three slashes for an absolute path: ` +
        `sqlite:///abs/path/sessions.db.`,
    );
  }
  const path = fileURLToPath(`file://${url.pathname}`);
  if (!isAbsolute(path) || path.endsWith("/"))
    throw new ConfigurationError(`SQLite URI ${JSON.stringify(uri)} must name a file by absolute path.`);
  return path;
}
