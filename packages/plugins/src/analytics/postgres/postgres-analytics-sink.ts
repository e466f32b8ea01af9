import { randomUUID } from "node:crypto";
import pg from "pg";
import { AgentKitError, ConfigurationError } from "@agentkit/core";
import { abortable } from "../abortable.js";
import { ANALYTICS_COLUMNS, type AnalyticsRow, type AnalyticsSink } from "../analytics-row.js";
import { OWN_POSTGRES_POOL_DEFAULTS } from "@agentkit/core/internal";

export interface PostgresAnalyticsSinkOptions {
  /** `postgres://user:pass@host:port/db`, for a pool the sink owns (closed by `close()`)… */
  connectionString?: string;
  /** …or pool settings (`ssl`, `max`, credentials)… */
  poolConfig?: pg.PoolConfig;
  /** …or a pool you own (not closed by the sink). */
  pool?: pg.Pool;
  /** Table name (default `agent_events`): letters, digits, underscores. */
  tableName?: string;
  /** Schema of the table (default `public`; created when missing). */
  schema?: string;
}

/** The PostgreSQL side failed (table creation, an insert). */
export class PostgresSinkError extends AgentKitError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("POSTGRES_SINK_ERROR", message, options);
  }
}

const PG_TYPES = { TIMESTAMP: "TIMESTAMPTZ", STRING: "TEXT", INTEGER: "BIGINT", BOOLEAN: "BOOLEAN" } as const;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
// 15 columns plus the row id: well under PostgreSQL's 65,535 parameters for any batch size up to 4,000.
const MAX_ROWS_PER_INSERT = 4000;

/**
 * Analytics rows to a local PostgreSQL table: no cloud account needed. `prepare` creates the
 * schema and table (plus an index on the clustering fields); with `autoSchemaUpgrade` an older
 * table gains missing columns. A batch is one multi-row INSERT (all or nothing); each row keeps
 * one `row_id` across the plugin's retries and conflicts are ignored, so a retried batch whose
 * first attempt did land is not stored twice.
 */
export class PostgresAnalyticsSink implements AnalyticsSink {
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly table: string;
  private readonly schema: string;
  private readonly rowIds = new WeakMap<AnalyticsRow, string>();

  constructor(options: PostgresAnalyticsSinkOptions) {
    const given = [options?.connectionString, options?.poolConfig, options?.pool].filter((v) => v !== undefined).length;
    if (given !== 1)
      throw new ConfigurationError(
        "PostgresAnalyticsSink needs exactly one of { connectionString }, { poolConfig } or { pool }.",
      );
    const table = options.tableName ?? "agent_events";
    const schema = options.schema ?? "public";
    for (const [what, name] of [
      ["tableName", table],
      ["schema", schema],
    ] as const) {
      if (!IDENTIFIER.test(name))
        throw new ConfigurationError(
          `PostgresAnalyticsSink: ${what} must be letters, digits and underscores (got ${JSON.stringify(name)}).`,
        );
    }
    this.table = table;
    this.schema = schema;
    this.ownsPool = options.pool === undefined;
    // A pool of its own gets the project's own-pool defaults (a connect deadline, keepalive);
    // `poolConfig` overrides them, and a caller's `pool` is left as it is.
    this.pool =
      options.pool ??
      new pg.Pool({
        ...OWN_POSTGRES_POOL_DEFAULTS,
        ...(options.poolConfig ?? { connectionString: options.connectionString }),
      });
    // An idle client's error (server restart) must not crash the process; the next query reports it.
    if (this.ownsPool) this.pool.on("error", () => undefined);
  }

  /** The quoted `schema.table` name. */
  get qualifiedName(): string {
    return `"${this.schema}"."${this.table}"`;
  }

  async prepare({
    autoSchemaUpgrade,
    clusteringFields,
    signal,
  }: {
    autoSchemaUpgrade: boolean;
    clusteringFields: readonly string[];
    signal?: AbortSignal;
  }): Promise<void> {
    const columns = ANALYTICS_COLUMNS.map((c) => `"${c.name}" ${PG_TYPES[c.type]}${c.required ? " NOT NULL" : ""}`);
    const statements = [
      `CREATE SCHEMA IF NOT EXISTS "${this.schema}"`,
      `CREATE TABLE IF NOT EXISTS ${this.qualifiedName} (row_id UUID PRIMARY KEY, ${columns.join(", ")})`,
    ];
    if (autoSchemaUpgrade) {
      for (const c of ANALYTICS_COLUMNS)
        statements.push(`ALTER TABLE ${this.qualifiedName} ADD COLUMN IF NOT EXISTS "${c.name}" ${PG_TYPES[c.type]}`);
    }
    const known = new Set<string>(ANALYTICS_COLUMNS.map((c) => c.name));
    const indexed = clusteringFields.filter((f) => known.has(f));
    if (indexed.length)
      statements.push(
        `CREATE INDEX IF NOT EXISTS "${this.table}_clustering_idx" ON ${this.qualifiedName} ` +
          `(${indexed.map((f) => `"${f}"`).join(", ")})`,
      );
    try {
      for (const sql of statements) await abortable(this.pool.query(sql), signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new PostgresSinkError(
        `Cannot prepare PostgreSQL table ${this.qualifiedName}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  async writeRows(rows: readonly AnalyticsRow[], signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    for (let start = 0; start < rows.length; start += MAX_ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + MAX_ROWS_PER_INSERT);
      const names = ["row_id", ...ANALYTICS_COLUMNS.map((c) => c.name)];
      const values: unknown[] = [];
      const tuples = chunk.map((row) => {
        let id = this.rowIds.get(row);
        if (!id) this.rowIds.set(row, (id = randomUUID()));
        const first = values.length;
        values.push(id, ...ANALYTICS_COLUMNS.map((c) => row[c.name]));
        return `(${names.map((_, i) => `$${first + i + 1}`).join(", ")})`;
      });
      const sql =
        `INSERT INTO ${this.qualifiedName} (${names.map((n) => `"${n}"`).join(", ")}) ` +
        `VALUES ${tuples.join(", ")} ON CONFLICT (row_id) DO NOTHING`;
      try {
        await abortable(this.pool.query(sql, values), signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new PostgresSinkError(
          `PostgreSQL insert into ${this.qualifiedName} failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
  }

  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
