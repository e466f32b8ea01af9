import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ConfigurationError, type CredentialScope, type CredentialStore } from "@agentkit/core";
import { SessionStoreError } from "../sql/session-store-error.js";
import { sqlitePathFromUri } from "./sqlite-session-service.js";
import { CREDENTIALS_TABLE } from "../credentials/credentials-table.js";

/**
 * Encrypted credential records (`StoredCredentialService`) in a table of their own,
 * `agentkit_credentials`, in a SQLite file (usually the sessions' file). Rows hold only
 * ciphertext: encryption is the service's job.
 */
export class SqliteCredentialStore implements CredentialStore {
  readonly path: string;
  private readonly db: DatabaseSync;

  constructor(options: { path: string; busyTimeoutMs?: number }) {
    if (typeof options?.path !== "string" || options.path.trim() === "") {
      throw new ConfigurationError('SqliteCredentialStore needs { path }: a database file path or ":memory:".');
    }
    this.path = options.path;
    const busy = options.busyTimeoutMs ?? 5000;
    try {
      if (this.path !== ":memory:") mkdirSync(dirname(this.path), { recursive: true });
      this.db = new DatabaseSync(this.path, { timeout: busy });
      if (this.path !== ":memory:") this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec(
        `CREATE TABLE IF NOT EXISTS ${CREDENTIALS_TABLE} (app_name TEXT NOT NULL, user_id TEXT NOT NULL, credential_key TEXT NOT NULL, record TEXT NOT NULL, update_time REAL NOT NULL, PRIMARY KEY (app_name, user_id, credential_key))`,
      );
    } catch (cause) {
      throw new SessionStoreError(
        "SESSION_STORE_UNAVAILABLE",
        `Cannot open the SQLite credential store ${this.path}: ${(cause as Error).message}`,
        { cause },
      );
    }
  }

  /** From a `sqlite:` URI (the same form as `SqliteSessionService.fromUri`). */
  static fromUri(uri: string): SqliteCredentialStore {
    return new SqliteCredentialStore({ path: sqlitePathFromUri(uri) });
  }

  async get(scope: CredentialScope): Promise<string | undefined> {
    const row = this.db
      .prepare(`SELECT record FROM ${CREDENTIALS_TABLE} WHERE app_name = ? AND user_id = ? AND credential_key = ?`)
      .get(scope.appName, scope.userId, scope.credentialKey) as { record: string } | undefined;
    return row?.record;
  }

  async put(scope: CredentialScope, record: string): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO ${CREDENTIALS_TABLE} (app_name, user_id, credential_key, record, update_time) VALUES (?, ?, ?, ?, ?) ON CONFLICT (app_name, user_id, credential_key) DO UPDATE SET record = excluded.record, update_time = excluded.update_time`,
      )
      .run(scope.appName, scope.userId, scope.credentialKey, record, Date.now() / 1000);
  }

  async delete(scope: CredentialScope): Promise<void> {
    this.db
      .prepare(`DELETE FROM ${CREDENTIALS_TABLE} WHERE app_name = ? AND user_id = ? AND credential_key = ?`)
      .run(scope.appName, scope.userId, scope.credentialKey);
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }
}
