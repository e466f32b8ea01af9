// SQL text for one vector table. Identifiers are validated by the store and always quoted here;
// every value goes through a bind parameter.

/** The CHECK constraint that fixes the vector dimension (its definition is where the dimension is stored). */
export const DIMENSION_CONSTRAINT = "agentkit_dimension";

/** Rows per INSERT statement: 5 parameters a row, well under PostgreSQL's 65,535 per statement. */
export const ROWS_PER_INSERT = 1000;

/** `"schema"."table"` or `"table"` (then resolved through the search_path). */
export function qualifiedName(table: string, schema?: string): string {
  return schema === undefined ? `"${table}"` : `"${schema}"."${table}"`;
}

export function createTableSql(name: string, table: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (
      id TEXT PRIMARY KEY,
      "text" TEXT NOT NULL,
      metadata JSONB NOT NULL DEFAULT '{}'::jsonb,
      embedding DOUBLE PRECISION[] NOT NULL,
      norm DOUBLE PRECISION NOT NULL
    )`,
    // jsonb_path_ops: smaller than the default GIN opclass and serves exactly `@>`.
    `CREATE INDEX IF NOT EXISTS "${table}_metadata_idx" ON ${name} USING GIN (metadata jsonb_path_ops)`,
  ];
}

/** One row: `exists` (the table is there) and `def`, the dimension constraint's definition or null. */
export const READ_DIMENSION_SQL = `SELECT to_regclass($1) IS NOT NULL AS exists,
  (SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c WHERE c.conrelid = to_regclass($1) AND c.conname = $2) AS def`;

export function parseDimension(def: string | null | undefined): number | undefined {
  const match = /cardinality\(embedding\)\s*=\s*(\d+)/.exec(def ?? "");
  return match ? Number(match[1]) : undefined;
}

export function addDimensionSql(name: string, dimension: number): string {
  return (
    `ALTER TABLE ${name} ADD CONSTRAINT "${DIMENSION_CONSTRAINT}" CHECK (cardinality(embedding) ` +
    `= ${Math.trunc(dimension)})`
  );
}

/** A multi-row upsert of `rows` rows; parameters per row: id, text, metadata (JSON text), embedding, norm. */
export function upsertSql(name: string, rows: number): string {
  const values: string[] = [];
  for (let i = 0; i < rows; i++) {
    const p = i * 5;
    values.push(`($${p + 1}, $${p + 2}, $${p + 3}::jsonb, $${p + 4}::float8[], $${p + 5}::float8)`);
  }
  return `INSERT INTO ${name} (id, "text", metadata, embedding, norm) VALUES ${values.join(", ")}
    ON CONFLICT (id) DO UPDATE SET "text" = EXCLUDED."text", metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding, norm = EXCLUDED.norm`;
}

/**
 * Cosine similarity computed in the database: $1 query vector, $2 its norm, $3 metadata filter
 * (JSON, only when `withFilter`), then min score and limit. The dot product sums element products
 * in index order and divides by `queryNorm * norm`, as InMemoryVectorStore does, so scores agree;
 * a zero norm on either side scores 0. Ties go by id in byte order (COLLATE "C").
 */
export function searchSql(name: string, withFilter: boolean): string {
  const filter = withFilter ? "WHERE metadata @> $3::jsonb" : "";
  const n = withFilter ? 4 : 3;
  return `SELECT id, "text", metadata, score FROM (
      SELECT id, "text", metadata,
        CASE WHEN norm = 0 OR $2::float8 = 0 THEN 0::float8
          ELSE (SELECT sum(e.a * e.b) FROM unnest(embedding, $1::float8[]) AS e(a, b)) / ($2::float8 * norm)
        END AS score
      FROM ${name} ${filter}
    ) m
    WHERE $${n}::float8 IS NULL OR score >= $${n}::float8
    ORDER BY score DESC, id COLLATE "C"
    LIMIT $${n + 1}`;
}
