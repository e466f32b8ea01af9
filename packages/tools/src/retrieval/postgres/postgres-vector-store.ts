import pg from "pg";
import { z } from "zod";
import { AgentKitError, ConfigurationError } from "@agentkit/core";
import type {
  Metadata,
  VectorMatch,
  VectorRecord,
  VectorSearchOptions,
  VectorStore,
} from "../in-memory-vector-store.js";
import { RetrievalError } from "../retrieval-error.js";
import {
  addDimensionSql,
  createTableSql,
  DIMENSION_CONSTRAINT,
  parseDimension,
  qualifiedName,
  READ_DIMENSION_SQL,
  ROWS_PER_INSERT,
  searchSql,
  upsertSql,
} from "./vector-table-sql.js";
import { OWN_POSTGRES_POOL_DEFAULTS } from "@agentkit/core/internal";

// 48 characters leave room for the "_metadata_idx" suffix within PostgreSQL's 63-byte names.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;
const identifier = (what: string) =>
  z.string().regex(IDENTIFIER, `${what} must be 1-48 letters, digits or underscores, not starting with a digit`);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Default bound on each statement of the store's own pool (`queryTimeoutMs`). */
const DEFAULT_QUERY_TIMEOUT_MS = 30_000;
/** PostgreSQL's statement_timeout and Node's setTimeout both stop at 2^31 - 1 ms. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** node-postgres's error when `query_timeout` expires (a plain Error, not a DatabaseError). */
const READ_TIMEOUT_MESSAGE = "Query read timeout";
/** The driver failed, not the statement (timeout, lost connection): the connection cannot be trusted. */
const isConnectionFailure = (error: unknown) =>
  !(error instanceof AgentKitError) && !(error instanceof pg.DatabaseError);

const optionsSchema = z
  .object({
    pool: z
      .custom<pg.Pool>(
        (v) => isObject(v) && typeof v.connect === "function" && typeof v.query === "function",
        "must be a pg Pool",
      )
      .optional(),
    connectionString: z.string().min(1).optional(),
    poolConfig: z.custom<Omit<pg.PoolConfig, "connectionString">>(isObject, "must be an object").optional(),
    queryTimeoutMs: z
      .number("must be a number of milliseconds")
      .int("must be a whole number of milliseconds")
      .min(0, "must be positive (or 0 for no limit)")
      .max(MAX_TIMEOUT_MS, `must be at most ${MAX_TIMEOUT_MS} ms`)
      .optional(),
    table: identifier("table").default("agentkit_vectors"),
    schema: identifier("schema").optional(),
    createTable: z.boolean().default(true),
  })
  .strict()
  .refine(
    (o) => (o.pool === undefined) !== (o.connectionString === undefined),
    "give exactly one of pool or connectionString",
  )
  .refine((o) => o.pool === undefined || o.poolConfig === undefined, "poolConfig applies only with connectionString")
  .refine(
    (o) => o.pool === undefined || o.queryTimeoutMs === undefined,
    "queryTimeoutMs applies only with connectionString (set query_timeout / statement_timeout on your own pool)",
  );

export type PostgresVectorStoreOptions = z.input<typeof optionsSchema>;

interface Row {
  id: string;
  text: string;
  metadata: string;
  vector: number[];
  norm: number;
}

/**
 * A `VectorStore` in a PostgreSQL table, without pgvector: embeddings are `double precision[]`
 * with their norm precomputed, and cosine ranking, metadata filtering (`@>` on jsonb), minScore
 * and LIMIT all run in SQL. The first upsert fixes the dimension as a CHECK constraint on the
 * table, so every process (and the database itself) enforces it. A batch upsert is one
 * transaction. Brute force: every matching row is scored per query.
 *
 * On the pool it creates itself, each statement is bounded by `queryTimeoutMs` (default 30 s)
 * twice over: PostgreSQL cancels it (`statement_timeout`, which also frees its locks), and the
 * driver stops waiting (`query_timeout`, which also ends a wait on a hung server or a silent
 * network). Either way the call fails with a `RetrievalError`; a connection the driver gave up
 * on is still busy with the statement, so it is closed, never handed to the next call.
 */
export class PostgresVectorStore implements VectorStore {
  /** The quoted table name used in SQL. */
  readonly qualifiedName: string;
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly createTable: boolean;
  private readonly schema: string | undefined;
  private readonly table: string;
  private ready: Promise<void> | undefined;
  private dimension: number | undefined;
  private closed = false;
  /** The limits named in timeout errors. */
  private readonly limits: { query: string; statement: string };

  constructor(options: PostgresVectorStoreOptions) {
    const parsed = optionsSchema.safeParse(options ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid PostgresVectorStore options: ${detail}.`);
    }
    const o = parsed.data;
    this.table = o.table;
    this.schema = o.schema;
    this.qualifiedName = qualifiedName(o.table, o.schema);
    this.createTable = o.createTable;
    if (o.pool) {
      this.pool = o.pool;
      this.ownsPool = false;
      this.limits = { query: "the pool's query_timeout", statement: "the pool's statement_timeout" };
    } else {
      const ms = o.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
      const config: pg.PoolConfig = {
        ...OWN_POSTGRES_POOL_DEFAULTS,
        ...(ms > 0 ? { statement_timeout: ms, query_timeout: ms } : {}),
        ...o.poolConfig,
        connectionString: o.connectionString,
      };
      const limit = (key: "query_timeout" | "statement_timeout") =>
        o.poolConfig !== undefined && Object.hasOwn(o.poolConfig, key)
          ? `poolConfig.${key} (${String(config[key])} ms)`
          : ms > 0
            ? `queryTimeoutMs (${ms} ms)`
            : "off (queryTimeoutMs 0)";
      this.limits = { query: limit("query_timeout"), statement: limit("statement_timeout") };
      this.pool = new pg.Pool(config);
      this.ownsPool = true;
      // An idle client losing its connection must not crash the process; the next query reports it.
      this.pool.on("error", () => undefined);
    }
  }

  async upsert(records: VectorRecord[]): Promise<void> {
    if (!Array.isArray(records)) throw new ConfigurationError("upsert expects an array of records.");
    // Validate everything before touching the database; a repeated id keeps its last record.
    const rows = new Map<string, Row>();
    let dimension = this.dimension;
    for (const record of records) {
      if (!isObject(record) || typeof record.id !== "string" || typeof record.text !== "string") {
        throw new ConfigurationError("Every record needs a string id and a string text.");
      }
      const vector = checkVector(record.vector, `record ${record.id}`);
      dimension ??= vector.length;
      if (vector.length !== dimension) throw dimensionError(`record ${record.id}`, vector.length, dimension);
      const metadata = checkMetadata(record.metadata ?? {}, `metadata of record ${record.id}`);
      rows.delete(record.id);
      rows.set(record.id, {
        id: record.id,
        text: record.text,
        metadata: JSON.stringify(metadata),
        vector: [...vector],
        norm: norm(vector),
      });
    }
    if (rows.size === 0 || dimension === undefined) return;
    const batchDimension = dimension;
    await this.ensureTable();
    const fixed = await this.transaction("upsert", async (client) => {
      const stored = await this.fixDimension(client, batchDimension);
      if (stored !== batchDimension) throw dimensionError("upserted", batchDimension, stored);
      const all = [...rows.values()];
      for (let i = 0; i < all.length; i += ROWS_PER_INSERT) {
        const chunk = all.slice(i, i + ROWS_PER_INSERT);
        await client.query(
          upsertSql(this.qualifiedName, chunk.length),
          chunk.flatMap((r) => [r.id, r.text, r.metadata, r.vector, r.norm]),
        );
      }
      return stored;
    });
    // Only after COMMIT: a rolled-back first upsert also rolled back the dimension constraint.
    this.dimension = fixed;
  }

  async search(vector: number[], { topK = 5, filter, minScore }: VectorSearchOptions = {}): Promise<VectorMatch[]> {
    if (!Number.isInteger(topK) || topK <= 0)
      throw new ConfigurationError(`topK must be a positive integer; got ${topK}.`);
    if (minScore !== undefined && (typeof minScore !== "number" || Number.isNaN(minScore))) {
      throw new ConfigurationError(`minScore must be a number; got ${String(minScore)}.`);
    }
    const filterJson = filter === undefined ? undefined : JSON.stringify(checkMetadata(filter, "filter"));
    const query = checkVector(vector, "query");
    await this.ensureTable();
    const dimension = this.dimension ?? (await this.run("search", (client) => this.readDimension(client)));
    // No vector was ever stored: nothing can match (as an empty InMemoryVectorStore answers).
    if (dimension === undefined) return [];
    this.dimension = dimension;
    if (query.length !== dimension) throw dimensionError("query", query.length, dimension);
    const params: unknown[] = [query, norm(query)];
    if (filterJson !== undefined) params.push(filterJson);
    params.push(minScore ?? null, Math.min(topK, 2 ** 31 - 1));
    const { rows } = await this.run("search", (client) =>
      client.query(searchSql(this.qualifiedName, filterJson !== undefined), params),
    );
    return rows.map((r: { id: string; text: string; metadata: Metadata; score: number }) => ({
      id: r.id,
      text: r.text,
      metadata: r.metadata,
      score: r.score,
    }));
  }

  async delete(ids: string[]): Promise<void> {
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string"))
      throw new ConfigurationError("delete expects an array of string ids.");
    if (ids.length === 0) return;
    await this.ensureTable();
    await this.run("delete", (client) =>
      client.query(`DELETE FROM ${this.qualifiedName} WHERE id = ANY($1::text[])`, [ids]),
    );
  }

  async size(): Promise<number> {
    await this.ensureTable();
    const { rows } = await this.run("size", (client) =>
      client.query(`SELECT count(*) AS n FROM ${this.qualifiedName}`),
    );
    return Number(rows[0].n);
  }

  /** Ends the pool the store created from `connectionString`; a pool you passed stays open. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  /** Creates the schema, table and metadata index once per store (when `createTable`). */
  private ensureTable(): Promise<void> {
    if (!this.createTable) return Promise.resolve();
    this.ready ??= this.transaction("create table", async (client) => {
      // Serialises concurrent creators (CREATE ... IF NOT EXISTS can race on the catalog).
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`agentkit_vector_store:${this.qualifiedName}`]);
      const { rows } = await client.query("SELECT to_regclass($1) IS NOT NULL AS exists", [this.qualifiedName]);
      if (rows[0].exists) return; // Existing tables need no CREATE privilege.
      if (this.schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
      for (const sql of createTableSql(this.qualifiedName, this.table)) await client.query(sql);
    }).catch((error: unknown) => {
      this.ready = undefined; // Try again on the next call.
      throw error;
    });
    return this.ready;
  }

  /** The stored dimension, or `dimension` made permanent when none is stored yet. */
  private async fixDimension(client: pg.PoolClient, dimension: number): Promise<number> {
    if (this.dimension !== undefined) return this.dimension;
    const stored = await this.readDimension(client);
    if (stored !== undefined) return stored;
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`agentkit_vector_store:${this.qualifiedName}`]);
    const raced = await this.readDimension(client);
    if (raced !== undefined) return raced;
    await client.query(addDimensionSql(this.qualifiedName, dimension));
    return dimension;
  }

  private async readDimension(client: pg.PoolClient): Promise<number | undefined> {
    const { rows } = await client.query(READ_DIMENSION_SQL, [this.qualifiedName, DIMENSION_CONSTRAINT]);
    if (!rows[0]?.exists)
      throw new RetrievalError(`The vector table ${this.qualifiedName} does not exist (createTable is false).`);
    return parseDimension(rows[0].def);
  }

  private transaction<T>(what: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.run(what, async (client, connection) => {
      await client.query("BEGIN");
      let result: T;
      try {
        result = await fn(client);
      } catch (error) {
        // A connection the driver gave up on is still busy: a ROLLBACK would only queue behind the
        // statement (and wait out another timeout). Closing it ends the transaction on the server.
        if (isConnectionFailure(error)) connection.broken = error as Error;
        else await client.query("ROLLBACK").catch((rollbackError: Error) => (connection.broken = rollbackError));
        throw error;
      }
      await client.query("COMMIT");
      return result;
    });
  }

  /** Runs `fn` on a pooled connection, mapping driver errors to RetrievalError / ConfigurationError. */
  private async run<T>(
    what: string,
    fn: (client: pg.PoolClient, connection: { broken?: Error }) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw new RetrievalError(`PostgresVectorStore ${this.qualifiedName} is closed.`);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (cause) {
      throw new RetrievalError(
        `PostgresVectorStore ${what}: cannot connect to PostgreSQL: ${(cause as Error).message}`,
        { cause },
      );
    }
    const connection: { broken?: Error } = {};
    try {
      return await fn(client, connection);
    } catch (error) {
      // A connection-level failure (a query_timeout too: the statement is still running on it)
      // poisons the client; release(err) closes its socket instead of returning it to the pool.
      if (isConnectionFailure(error)) connection.broken ??= error as Error;
      throw this.wrap(what, error);
    } finally {
      client.release(connection.broken);
    }
  }

  private wrap(what: string, error: unknown): Error {
    if (error instanceof AgentKitError) return error;
    const e = error as pg.DatabaseError;
    if (e?.code === "23514" && e.constraint === DIMENSION_CONSTRAINT) {
      return new ConfigurationError(
        `The vectors do not match the dimension fixed for ${this.qualifiedName}: ${e.message}`,
        { cause: error },
      );
    }
    if (error instanceof Error && isConnectionFailure(error) && error.message === READ_TIMEOUT_MESSAGE) {
      return new RetrievalError(
        `PostgresVectorStore ${what} on ${this.qualifiedName} timed out: PostgreSQL did not answer within ` +
          `${this.limits.query}; the connection was closed.`,
        { cause: error },
      );
    }
    if (e?.code === "57014") {
      // query_canceled: statement_timeout (or someone's pg_cancel_backend); the connection stays usable.
      return new RetrievalError(
        `PostgresVectorStore ${what} on ${this.qualifiedName} was cancelled by PostgreSQL: ${e.message} ` +
          `(SQLSTATE 57014; statement_timeout is ${this.limits.statement})`,
        { cause: error },
      );
    }
    const state = typeof e?.code === "string" ? ` (SQLSTATE ${e.code})` : "";
    return new RetrievalError(
      `PostgresVectorStore ${what} on ${this.qualifiedName} failed: ${e?.message ?? String(error)}${state}`,
      { cause: error },
    );
  }
}

function checkVector(vector: unknown, label: string): number[] {
  if (
    !Array.isArray(vector) ||
    vector.length === 0 ||
    !vector.every((x) => typeof x === "number" && Number.isFinite(x))
  ) {
    throw new ConfigurationError(`The ${label} vector must be a non-empty array of finite numbers.`);
  }
  // A finite vector whose norm overflows would make every score NaN.
  if (!Number.isFinite(norm(vector)))
    throw new ConfigurationError(`The ${label} vector is too large (its norm overflows).`);
  return vector;
}

function checkMetadata(metadata: unknown, label: string): Metadata {
  if (!isObject(metadata))
    throw new ConfigurationError(`The ${label} must be an object of string, number or boolean values.`);
  for (const [key, value] of Object.entries(metadata)) {
    const ok =
      typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
    if (!ok)
      throw new ConfigurationError(
        `The ${label} has a bad value at ${JSON.stringify(key)}: use strings, finite numbers or booleans.`,
      );
  }
  return metadata as Metadata;
}

function dimensionError(label: string, got: number, expected: number): ConfigurationError {
  return new ConfigurationError(
    `The ${label} vector has ${got} dimensions; this store holds ${expected}-dimensional vectors.`,
  );
}

function norm(v: number[]): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum);
}
