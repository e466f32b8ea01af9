import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { ConfigurationError, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  InMemoryVectorStore,
  RetrievalError,
  VectorRetrievalTool,
  type Metadata,
  type VectorRecord,
  type VectorSearchOptions,
} from "@agentkit/tools/retrieval";
import { PostgresVectorStore } from "@agentkit/tools/retrieval/postgres";
import { startRunner } from "../helpers.js";
import { freePort, startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";
import { vectorStoreScenario } from "./postgres-shared-scenario.js";
import { SeededRandom } from "@agentkit/test-support/seeded-random";

// initdb and the first connections are slow on a loaded machine.
const SLOW = 120_000;

let cluster: PostgresCluster;
let url: string;
let pool: pg.Pool;
let tableNo = 0;
const table = () => `vectors_${++tableNo}`;

beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase("retrieval");
  pool = new pg.Pool({ connectionString: url, max: 4 });
}, SLOW);

afterAll(async () => {
  await pool?.end();
  await cluster?.stop();
}, SLOW);

describe("PostgresVectorStore agrees with InMemoryVectorStore", () => {
  it(
    "on the shared behaviour scenario (rankings, ties, filters, minScore, topK, replace, delete, size, errors)",
    async () => {
      const memory = await vectorStoreScenario(new InMemoryVectorStore());
      const store = new PostgresVectorStore({ pool, table: table() });
      const postgres = await vectorStoreScenario(store);
      // Same steps, same matches, same metadata, and scores equal to the last bit.
      expect(postgres).toEqual(memory);
      expect(postgres.length).toBeGreaterThan(20);
    },
    SLOW,
  );

  it(
    "on 1,200 random vectors (two INSERT chunks) and 40 random queries",
    async () => {
      // Seeded, so the random comparison is reproducible.
      const random = new SeededRandom(7);
      const next = () => random.next();
      const dim = 16;
      const vec = () => Array.from({ length: dim }, () => Math.round((next() * 2 - 1) * 1000) / 1000);
      const records: VectorRecord[] = Array.from({ length: 1200 }, (_, i) => ({
        id: `r${String(i).padStart(4, "0")}`,
        text: `record ${i}`,
        vector: vec(),
        metadata: { cat: `c${i % 4}`, even: i % 2 === 0 },
      }));
      // Exact duplicates of earlier vectors: ties that must break by id in both stores.
      for (let i = 0; i < 20; i++)
        records.push({ ...records[i * 7]!, id: `dup${i}`, metadata: { cat: "c0", even: true } });
      const memory = new InMemoryVectorStore();
      const store = new PostgresVectorStore({ pool, table: table() });
      await memory.upsert(records);
      await store.upsert(records);
      expect(await store.size()).toBe(1220);
      for (let q = 0; q < 40; q++) {
        const query = q % 5 === 0 ? records[q * 3]!.vector : vec();
        const filter: Metadata = next() < 0.5 ? { cat: `c${q % 4}` } : { cat: `c${q % 4}`, even: q % 3 === 0 };
        const options: VectorSearchOptions = {
          topK: 1 + Math.floor(next() * 25),
          ...(next() < 0.5 ? { filter } : {}),
          ...(next() < 0.4 ? { minScore: Math.round((next() - 0.3) * 100) / 100 } : {}),
        };
        const expected = await memory.search(query, options);
        const actual = await store.search(query, options);
        expect(actual.map((m) => m.id)).toEqual(expected.map((m) => m.id));
        for (const [i, m] of actual.entries()) expect(m.score).toBeCloseTo(expected[i]!.score, 12);
      }
    },
    SLOW,
  );
});

describe("PostgresVectorStore in PostgreSQL", () => {
  it(
    "persists across store instances; a second store learns the stored dimension",
    async () => {
      const name = table();
      const first = new PostgresVectorStore({ pool, table: name });
      await first.upsert([
        { id: "x", text: "ex", vector: [1, 2, 3, 4], metadata: { lang: "en" } },
        { id: "y", text: "why", vector: [4, 3, 2, 1], metadata: { lang: "fr" } },
      ]);
      const second = new PostgresVectorStore({ connectionString: url, table: name });
      try {
        expect(await second.size()).toBe(2);
        expect((await second.search([1, 2, 3, 4.1], { topK: 1 })).map((m) => [m.id, m.text, m.metadata])).toEqual([
          ["x", "ex", { lang: "en" }],
        ]);
        // Never upserted through `second`, yet it refuses other dimensions.
        await expect(second.upsert([{ id: "z", text: "zed", vector: [1, 2, 3], metadata: {} }])).rejects.toThrow(
          /3 dimensions; this store holds 4-dimensional/,
        );
        await expect(new PostgresVectorStore({ pool, table: name }).search([1, 2])).rejects.toThrow(ConfigurationError);
        await second.delete(["x"]);
        expect(await first.size()).toBe(1);
      } finally {
        await second.close();
      }
    },
    SLOW,
  );

  it(
    "enforces the dimension in the database itself and rejects mixed batches without writing",
    async () => {
      const name = table();
      const store = new PostgresVectorStore({ pool, table: name });
      await expect(
        store.upsert([
          { id: "a", text: "a", vector: [1, 0], metadata: {} },
          { id: "b", text: "b", vector: [1, 0, 0], metadata: {} },
        ]),
      ).rejects.toThrow(ConfigurationError);
      expect(await store.size()).toBe(0);
      await store.upsert([{ id: "a", text: "a", vector: [1, 0], metadata: {} }]);
      const constraint = await pool.query(
        `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = '"${name}"'::regclass AND ` +
          `contype = 'c'`,
      );
      expect(constraint.rows.map((r) => r.def)).toEqual(["CHECK ((cardinality(embedding) = 2))"]);
      const raw = pool.query(`INSERT INTO "${name}" (id, "text", embedding, norm) VALUES ('raw', 'raw', '{1,2,3}', 1)`);
      await expect(raw).rejects.toMatchObject({ code: "23514", constraint: "agentkit_dimension" });
    },
    SLOW,
  );

  it(
    "writes a batch in one transaction: a failure part-way leaves nothing written, not even the dimension",
    async () => {
      const store = new PostgresVectorStore({ pool, table: table() });
      await store.upsert([{ id: "keep", text: "original", vector: [1, 1], metadata: {} }]);
      const batch: VectorRecord[] = [{ id: "keep", text: "changed", vector: [0, 1], metadata: {} }];
      for (let i = 0; i < 1498; i++) batch.push({ id: `n${i}`, text: "fine", vector: [i, 1], metadata: {} });
      batch.push({ id: "bad", text: "NUL \u0000 is not valid in PostgreSQL text", vector: [1, 0], metadata: {} });
      const error = await store.upsert(batch).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RetrievalError);
      expect((error as RetrievalError).code).toBe("RETRIEVAL_ERROR");
      expect((error as RetrievalError).cause).toBeInstanceOf(pg.DatabaseError);
      expect((error as Error).message).toMatch(/upsert on "vectors_\d+" failed: .*SQLSTATE 22021/);
      expect(await store.size()).toBe(1);
      expect((await store.search([1, 1], { topK: 1 }))[0]).toMatchObject({ id: "keep", text: "original" });

      // The first batch of a fresh table fails: its dimension is rolled back with it.
      const fresh = new PostgresVectorStore({ pool, table: table() });
      await expect(fresh.upsert([{ id: "bad", text: "\u0000", vector: [1, 0], metadata: {} }])).rejects.toThrow(
        RetrievalError,
      );
      await fresh.upsert([{ id: "ok", text: "three", vector: [1, 0, 0], metadata: {} }]);
      expect(await fresh.size()).toBe(1);
    },
    SLOW,
  );

  it(
    "lets exactly one of two racing first upserts fix the dimension",
    async () => {
      const name = table();
      const stores = [
        new PostgresVectorStore({ connectionString: url, table: name }),
        new PostgresVectorStore({ connectionString: url, table: name }),
      ];
      try {
        const results = await Promise.allSettled([
          stores[0]!.upsert([{ id: "two", text: "2", vector: [1, 2], metadata: {} }]),
          stores[1]!.upsert([{ id: "three", text: "3", vector: [1, 2, 3], metadata: {} }]),
        ]);
        expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
        expect(rejected).toHaveLength(1);
        expect(rejected[0]!.reason).toBeInstanceOf(ConfigurationError);
        expect(await stores[0]!.size()).toBe(1);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    },
    SLOW,
  );

  it(
    "creates the documented table layout, in a schema when asked",
    async () => {
      const store = new PostgresVectorStore({ pool, schema: "knowledge", table: "chunks" });
      await store.upsert([{ id: "a", text: "a", vector: [1], metadata: { k: "v" } }]);
      const columns = await pool.query(
        "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'knowledge' " +
          "AND table_name = 'chunks' ORDER BY ordinal_position",
      );
      expect(columns.rows.map((r) => [r.column_name, r.data_type, r.is_nullable])).toEqual([
        ["id", "text", "NO"],
        ["text", "text", "NO"],
        ["metadata", "jsonb", "NO"],
        ["embedding", "ARRAY", "NO"],
        ["norm", "double precision", "NO"],
      ]);
      const indexes = await pool.query(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = 'knowledge' AND tablename = 'chunks' ORDER BY indexname",
      );
      expect(indexes.rows.map((r) => r.indexdef)).toEqual([
        "CREATE INDEX chunks_metadata_idx ON knowledge.chunks USING gin (metadata jsonb_path_ops)",
        "CREATE UNIQUE INDEX chunks_pkey ON knowledge.chunks USING btree (id)",
      ]);
      const stored = await pool.query("SELECT embedding, norm FROM knowledge.chunks");
      expect(stored.rows).toEqual([{ embedding: [1], norm: 1 }]);
      // The same name without the schema is another (missing) table.
      await expect(new PostgresVectorStore({ pool, table: "chunks", createTable: false }).size()).rejects.toThrow(
        RetrievalError,
      );
    },
    SLOW,
  );

  it(
    "with createTable: false uses an existing table and reports a missing one",
    async () => {
      const missing = new PostgresVectorStore({ pool, table: "no_such_table", createTable: false });
      await expect(missing.search([1, 0])).rejects.toThrow(/"no_such_table" does not exist/);
      await expect(missing.upsert([{ id: "a", text: "a", vector: [1], metadata: {} }])).rejects.toThrow(RetrievalError);
      const error = await missing.size().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RetrievalError);
      expect(((error as RetrievalError).cause as pg.DatabaseError).code).toBe("42P01");
      const exists = await pool.query("SELECT to_regclass('no_such_table') AS t");
      expect(exists.rows[0].t).toBeNull();

      const name = table();
      await new PostgresVectorStore({ pool, table: name }).upsert([
        { id: "a", text: "a", vector: [1, 0], metadata: {} },
      ]);
      const existing = new PostgresVectorStore({ pool, table: name, createTable: false });
      expect((await existing.search([1, 0])).map((m) => m.id)).toEqual(["a"]);
    },
    SLOW,
  );

  it(
    "close() leaves a caller's pool open and ends its own pool",
    async () => {
      const borrowed = new PostgresVectorStore({ pool, table: table() });
      await borrowed.upsert([{ id: "a", text: "a", vector: [1], metadata: {} }]);
      await borrowed.close();
      await borrowed.close();
      expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      await expect(borrowed.size()).rejects.toThrow(/is closed/);

      const appName = "agentkit_owned_pool_test";
      const owned = new PostgresVectorStore({
        connectionString: url,
        table: table(),
        poolConfig: { application_name: appName, max: 2 },
      });
      await owned.upsert([{ id: "a", text: "a", vector: [1], metadata: {} }]);
      const connections = async () =>
        Number(
          (await pool.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", [appName]))
            .rows[0].n,
        );
      expect(await connections()).toBeGreaterThan(0);
      await owned.close();
      // The backend exits just after the client disconnects.
      while ((await connections()) > 0) await new Promise((r) => setTimeout(r, 100));
      expect(await connections()).toBe(0);
      await expect(owned.search([1])).rejects.toThrow(RetrievalError);
    },
    SLOW,
  );

  it(
    "wraps an unreachable server in RetrievalError with the cause",
    async () => {
      const port = await freePort();
      const store = new PostgresVectorStore({
        connectionString: `postgres://postgres@127.0.0.1:${port}/none`,
        poolConfig: { connectionTimeoutMillis: 5000 },
      });
      try {
        const error = await store.size().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(RetrievalError);
        expect((error as Error).message).toMatch(/cannot connect to PostgreSQL/);
        expect(((error as RetrievalError).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
      } finally {
        await store.close();
      }
    },
    SLOW,
  );

  it(
    "rejects bad options, metadata and filters with ConfigurationError",
    async () => {
      const bad: unknown[] = [
        { pool, table: 'x"; DROP TABLE users; --' },
        { pool, table: "1abc" },
        { pool, table: "t".repeat(49) },
        { pool, schema: "my-schema" },
        { pool, connectionString: url },
        {},
        { pool: {} },
        { pool, poolConfig: { max: 1 } },
        { pool, tabel: "typo" },
        { connectionString: "" },
        undefined,
      ];
      for (const options of bad) expect(() => new PostgresVectorStore(options as never)).toThrow(ConfigurationError);
      expect(() => new PostgresVectorStore({ pool, table: "bad name" })).toThrow(
        /table must be 1-48 letters, digits or underscores/,
      );

      const store = new PostgresVectorStore({ pool, table: table() });
      await expect(store.upsert([{ id: "a", text: "a", vector: [1], metadata: { n: Number.NaN } }])).rejects.toThrow(
        ConfigurationError,
      );
      await expect(
        store.upsert([{ id: "a", text: "a", vector: [1], metadata: { nested: { x: 1 } } as never }]),
      ).rejects.toThrow(/bad value at "nested"/);
      await expect(store.upsert([{ id: 7, text: "a", vector: [1], metadata: {} } as never])).rejects.toThrow(
        /string id/,
      );
      await expect(store.upsert([{ id: "a", text: "a", vector: [1e200, 1e200], metadata: {} }])).rejects.toThrow(
        /norm overflows/,
      );
      await expect(store.search([1], { filter: { k: [1] } as never })).rejects.toThrow(ConfigurationError);
      await expect(store.search([1], { minScore: Number.NaN })).rejects.toThrow(/minScore/);
      expect(await store.size()).toBe(0);
    },
    SLOW,
  );
});

/** Deterministic local embedding: hashed bag of lower-cased words, 64 dimensions. */
async function hashedBagOfWords(texts: string[]): Promise<number[][]> {
  return texts.map((text) => {
    const v = new Array<number>(64).fill(0);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? [])
      v[createHash("sha256").update(word).digest()[0]! % 64]! += 1;
    return v;
  });
}

describe("VectorRetrievalTool over PostgresVectorStore", () => {
  it(
    "answers an agent's tool call from PostgreSQL, also from a fresh store instance",
    async () => {
      const name = table();
      const store = new PostgresVectorStore({ connectionString: url, table: name });
      const docs = [
        { id: "tea", text: "Green tea is brewed at eighty degrees for two minutes.", metadata: { topic: "drinks" } },
        {
          id: "bike",
          text: "Inflate bicycle tyres to the pressure printed on the sidewall.",
          metadata: { topic: "bikes" },
        },
        {
          id: "coffee",
          text: "Espresso coffee needs finely ground beans and nine bar of pressure.",
          metadata: { topic: "drinks" },
        },
      ];
      try {
        const tool = new VectorRetrievalTool({
          name: "search_notes",
          description: "Searches the notes.",
          embed: hashedBagOfWords,
          store,
          topK: 1,
        });
        expect(await tool.addDocuments(docs)).toEqual(["tea#0", "bike#0", "coffee#0"]);
        const model = new ScriptedModel({
          steps: [
            ScriptedModel.functionCall("search_notes", { query: "how hot to brew green tea" }),
            ScriptedModel.text("Eighty degrees."),
          ],
        });
        const { runner, send } = await startRunner(new LlmAgent({ name: "notes", model, tools: [tool] }));
        try {
          const events = await send("tea temperature?");
          const response = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse)!
            .functionResponse!.response as {
            results: { text: string; source: string; score: number }[];
          };
          expect(response.results).toEqual([{ text: docs[0]!.text, source: "tea", score: expect.any(Number) }]);
          expect(response.results[0]!.score).toBeGreaterThan(0.3);
        } finally {
          await runner.close();
        }
      } finally {
        await store.close();
      }

      // Another store (as another process would) serves the same chunks with the tool's filter.
      const reopened = new PostgresVectorStore({ pool, table: name });
      const reader = new VectorRetrievalTool({
        name: "kb",
        description: "kb",
        embed: hashedBagOfWords,
        store: reopened,
        filter: { topic: "drinks" },
      });
      const matches = await reader.search("pressure");
      expect(matches.map((m) => m.metadata.source)).toEqual(["coffee", "tea"]);
      expect(matches[0]!.metadata).toEqual({ topic: "drinks", source: "coffee", chunk: 0 });
      expect(await reopened.size()).toBe(3);
    },
    SLOW,
  );
});
