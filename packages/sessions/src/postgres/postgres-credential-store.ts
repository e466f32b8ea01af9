import { Pool, type PoolConfig } from "pg";
import { ConfigurationError, type CredentialScope, type CredentialStore } from "@agentkit/core";
import { CREDENTIALS_TABLE } from "../credentials/credentials-table.js";
import { SessionStoreError } from "../sql/session-store-error.js";
import { OWN_POSTGRES_POOL_DEFAULTS } from "@agentkit/core/internal";

export type PostgresCredentialStoreOptions =
  | { connectionString: string; poolConfig?: Omit<PoolConfig, "connectionString"> }
  | { pool: Pool };

/**
 * Encrypted credential records (`StoredCredentialService`) in PostgreSQL, table
 * `agentkit_credentials` (created on first use), usually in the sessions' database. Any replica
 * reads any user's record; rows hold only ciphertext.
 */
export class PostgresCredentialStore implements CredentialStore {
  private readonly pool: Pool;
  private readonly ownsPool: boolean;
  private ready: Promise<void> | undefined;

  constructor(options: PostgresCredentialStoreOptions) {
    if (options && "pool" in options && options.pool) {
      this.pool = options.pool;
      this.ownsPool = false;
    } else if (
      options &&
      "connectionString" in options &&
      typeof options.connectionString === "string" &&
      options.connectionString
    ) {
      this.pool = new Pool({
        ...OWN_POSTGRES_POOL_DEFAULTS,
        ...options.poolConfig,
        connectionString: options.connectionString,
      });
      this.ownsPool = true;
      // An idle client losing its connection (which keepalive now notices) must not crash the
      // process; the pool replaces it.
      this.pool.on("error", () => undefined);
    } else {
      throw new ConfigurationError("PostgresCredentialStore needs { connectionString } or { pool }.");
    }
  }

  static fromUri(uri: string): PostgresCredentialStore {
    if (!/^postgres(ql)?:\/\//.test(uri))
      throw new ConfigurationError("PostgresCredentialStore needs a postgres:// URI.");
    return new PostgresCredentialStore({ connectionString: uri });
  }

  private init(): Promise<void> {
    this.ready ??= this.pool
      .query(
        `CREATE TABLE IF NOT EXISTS ${CREDENTIALS_TABLE} (app_name TEXT NOT NULL, user_id TEXT NOT NULL, credential_key TEXT NOT NULL, record TEXT NOT NULL, update_time DOUBLE PRECISION NOT NULL, PRIMARY KEY (app_name, user_id, credential_key))`,
      )
      .then(
        () => undefined,
        (cause: unknown) => {
          this.ready = undefined;
          throw unavailable(cause);
        },
      );
    return this.ready;
  }

  async get(scope: CredentialScope): Promise<string | undefined> {
    await this.init();
    const { rows } = await this.query(
      `SELECT record FROM ${CREDENTIALS_TABLE} WHERE app_name = $1 AND user_id = $2 AND credential_key = $3`,
      [scope.appName, scope.userId, scope.credentialKey],
    );
    return (rows[0] as { record: string } | undefined)?.record;
  }

  async put(scope: CredentialScope, record: string): Promise<void> {
    await this.init();
    await this.query(
      `INSERT INTO ${CREDENTIALS_TABLE} (app_name, user_id, credential_key, record, update_time) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (app_name, user_id, credential_key) DO UPDATE SET record = EXCLUDED.record, update_time = EXCLUDED.update_time`,
      [scope.appName, scope.userId, scope.credentialKey, record, Date.now() / 1000],
    );
  }

  async delete(scope: CredentialScope): Promise<void> {
    await this.init();
    await this.query(`DELETE FROM ${CREDENTIALS_TABLE} WHERE app_name = $1 AND user_id = $2 AND credential_key = $3`, [
      scope.appName,
      scope.userId,
      scope.credentialKey,
    ]);
  }

  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }

  private async query(text: string, values: unknown[]) {
    try {
      return await this.pool.query(text, values);
    } catch (cause) {
      throw unavailable(cause);
    }
  }
}

function unavailable(cause: unknown): SessionStoreError {
  return new SessionStoreError(
    "SESSION_STORE_UNAVAILABLE",
    `The PostgreSQL credential store failed: ${cause instanceof Error ? cause.message : String(cause)}`,
    { cause },
  );
}
