/** A value a statement takes as a parameter or returns in a row. */
export type SqlValue = string | number | null;

/** One row, keyed by column name. */
export type SqlRow = Record<string, unknown>;

/** A statement with `?` placeholders (drivers translate them to their own syntax). */
export interface SqlStatement {
  text: string;
  params: SqlValue[];
}

/** What a driver hands back for each statement. */
export interface SqlResult {
  rows: SqlRow[];
  /** Rows inserted, updated or deleted. */
  changes: number;
}

/**
 * A unit of work written once for every SQL backend: a generator that yields statements and
 * receives their results. The PostgreSQL driver runs it asynchronously over one pooled client;
 * the SQLite driver runs it synchronously (node:sqlite is synchronous), so a SQLite transaction
 * never spans an `await` and another connection in the same thread can never wait on it.
 * Throwing inside a plan rolls its transaction back.
 */
export type SqlPlan<T> = Generator<SqlStatement, T, SqlResult>;

/** Builds a statement (a tagged shortcut keeps plans readable). */
export function sql(text: string, ...params: SqlValue[]): SqlStatement {
  return { text, params };
}

/** What differs between the SQL backends, as far as the plans care. */
export interface SqlDialect {
  readonly name: "sqlite" | "postgres";
  /**
   * Appended to a SELECT that must lock its rows until commit ("" where the transaction already holds the write lock).
   */
  readonly forUpdate: string;
  /**
   * Run first in the migration transaction so two processes never
   * migrate at once (none where BEGIN IMMEDIATE already does).
   */
  readonly migrationLock: SqlStatement | undefined;
}
