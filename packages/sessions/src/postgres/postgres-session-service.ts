import { createHash } from "node:crypto";
import { Pool, type PoolClient, type PoolConfig } from "pg";
import { ConfigurationError } from "@agentkit/core";
import { SessionStoreError } from "../sql/session-store-error.js";
import type { SqlDialect, SqlPlan, SqlResult, SqlStatement } from "../sql/sql-plan.js";
import { SqlSessionService, type SqlPlanMode } from "../sql/sql-session-service.js";
import { OWN_POSTGRES_POOL_DEFAULTS } from "@agentkit/core/internal";

/** Either a connection string (the service creates, owns and closes its pool) or a pool of yours (left open). */
export type PostgresSessionServiceOptions =
  | {
      connectionString: string;
      /**
       * Extra settings for the pool the service creates (size, timeouts, ssl), over its defaults:
       * `connectionTimeoutMillis` 10 s, TCP keepalive after 10 s of silence (`keepAlive`,
       * `keepAliveInitialDelayMillis`).
       */
      poolConfig?: Omit<PoolConfig, "connectionString">;
    }
  | { pool: Pool };

// Any constant works: it only has to be the same in every process that migrates this schema.
const MIGRATION_LOCK_KEY = 0x6167_6b74; // "agkt"

const POSTGRES_DIALECT: SqlDialect = {
  name: "postgres",
  forUpdate: " FOR UPDATE",
  migrationLock: { text: "SELECT pg_advisory_xact_lock(?)", params: [MIGRATION_LOCK_KEY] },
};

/** SQLSTATE classes that mean the server is not there (08: connection exception, 57P: shutdown). */
const UNAVAILABLE_CODES = /^(08|57P0)/;

/**
 * Sessions in PostgreSQL through `pg`. Every write is one transaction that locks the session
 * row (`SELECT … FOR UPDATE`) before anything else, so writers from several replicas on one
 * session queue up and a stale one gets `StaleSessionError`; reads run in a REPEATABLE READ
 * snapshot. Statements are prepared per connection.
 */
export class PostgresSessionService extends SqlSessionService {
  private readonly pool: Pool;
  private readonly ownsPool: boolean;
  private readonly label: string;

  constructor(options: PostgresSessionServiceOptions) {
    super(POSTGRES_DIALECT);
    if (options && "pool" in options && options.pool) {
      if (typeof options.pool.connect !== "function")
        throw new ConfigurationError("PostgresSessionService { pool } must be a pg Pool.");
      this.pool = options.pool;
      this.ownsPool = false;
      this.label = "PostgreSQL (caller's pool)";
    } else if (
      options &&
      "connectionString" in options &&
      typeof options.connectionString === "string" &&
      options.connectionString !== ""
    ) {
      this.label = redact(options.connectionString);
      this.pool = new Pool({
        ...OWN_POSTGRES_POOL_DEFAULTS,
        ...options.poolConfig,
        connectionString: options.connectionString,
      });
      this.ownsPool = true;
      // An idle client losing its connection must not crash the process; the pool replaces it.
      this.pool.on("error", () => undefined);
    } else {
      throw new ConfigurationError(
        "PostgresSessionService needs { connectionString } (postgres://user:pass@host:5432/db) or { pool }.",
      );
    }
  }

  /** From a `postgres://` or `postgresql://` URL (libpq-style query parameters such as sslmode are passed to pg). */
  static fromUri(
    uri: string,
    options: { poolConfig?: Omit<PoolConfig, "connectionString"> } = {},
  ): PostgresSessionService {
    let url: URL;
    try {
      url = new URL(uri);
    } catch (cause) {
      throw new ConfigurationError(
        `Invalid PostgreSQL session URI ${JSON.stringify(redact(String(uri)))}: expected ` +
          `postgres://user:pass@host:5432/db.`,
        { cause },
      );
    }
    if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
      throw new ConfigurationError(
        `Not a PostgreSQL URI: ${JSON.stringify(redact(uri))} (expected postgres://user:pass@host:5432/db).`,
      );
    }
    return new PostgresSessionService({
      connectionString: uri,
      ...(options.poolConfig ? { poolConfig: options.poolConfig } : {}),
    });
  }

  protected override async runPlan<T>(plan: SqlPlan<T>, mode: SqlPlanMode): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (cause) {
      throw new SessionStoreError(
        "SESSION_STORE_UNAVAILABLE",
        `Cannot connect to the session store ${this.label}: ${(cause as Error).message}`,
        { cause },
      );
    }
    let broken: Error | undefined;
    try {
      try {
        await client.query(mode === "write" ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        let step = plan.next();
        while (!step.done) step = plan.next(await run(client, step.value));
        await client.query("COMMIT");
        return step.value;
      } catch (error) {
        // A connection that cannot even roll back is broken.
        await client.query("ROLLBACK").catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      }
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === "string" && UNAVAILABLE_CODES.test(code)) {
        broken = error as Error;
        throw new SessionStoreError(
          "SESSION_STORE_UNAVAILABLE",
          `The session store ${this.label} is unavailable: ${(error as Error).message}`,
          { cause: error },
        );
      }
      throw error;
    } finally {
      // A broken client is discarded instead of going back to the pool.
      client.release(broken);
    }
  }

  protected override async closeDriver(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }

  protected override describeStore(): string {
    return this.label;
  }
}

async function run(client: PoolClient, statement: SqlStatement): Promise<SqlResult> {
  const prepared = preparedForm(statement.text);
  const result = await client.query({ name: prepared.name, text: prepared.text, values: statement.params });
  return { rows: result.rows as Record<string, unknown>[], changes: result.rowCount ?? 0 };
}

/** The plans' statements in PostgreSQL form; a fixed, small set, so the cache stays small. */
const preparedForms = new Map<string, { name: string; text: string }>();

/**
 * `?` placeholders (the plans' portable form; they put no `?` in literals) to `$1, $2, …`, and a
 * prepared-statement name derived from the text, so every service instance sharing a pool
 * agrees on it.
 */
function preparedForm(text: string): { name: string; text: string } {
  let form = preparedForms.get(text);
  if (!form) {
    let n = 0;
    form = {
      name: `agentkit_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`,
      text: text.replace(/\?/g, () => `$${++n}`),
    };
    preparedForms.set(text, form);
  }
  return form;
}

/** The URL without its password, for messages. */
function redact(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "PostgreSQL";
  }
}
