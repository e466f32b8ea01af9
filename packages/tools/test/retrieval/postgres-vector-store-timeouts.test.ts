// PostgresVectorStore's bound on each statement of its own pool (queryTimeoutMs): statements
// blocked by a table lock another connection holds, and a backend stopped with SIGSTOP, against
// a real PostgreSQL cluster this file starts.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { ConfigurationError } from "@agentkit/core";
import { RetrievalError, type VectorRecord } from "@agentkit/tools/retrieval";
import { PostgresVectorStore } from "@agentkit/tools/retrieval/postgres";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";

// initdb and the first connections are slow on a loaded machine.
const SLOW = 120_000;

let cluster: PostgresCluster;
let url: string;
let pool: pg.Pool;
let tableNo = 0;
const table = () => `vectors_${++tableNo}`;

beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase("retrieval_timeouts");
  pool = new pg.Pool({ connectionString: url, max: 4 });
}, SLOW);

afterAll(async () => {
  await pool?.end();
  await cluster?.stop();
}, SLOW);

/** Holds ACCESS EXCLUSIVE on a table from another connection: statements on it block until release(). */
async function lockTable(name: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("BEGIN");
  await client.query(`LOCK TABLE "${name}" IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await client.query("COMMIT");
      await client.end();
    },
  };
}

type Outcome<T> = { status: "fulfilled"; value: T } | { status: "rejected"; reason: unknown } | { status: "pending" };

/**
 * How `promise` settled and after how long; "pending" once `guardMs` passed, so a call without a
 * bound fails the test instead of hanging it (the guard is far above every bound the tests set).
 */
async function outcome<T>(promise: Promise<T>, guardMs = 15_000): Promise<Outcome<T> & { ms: number }> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ status: "pending" }), guardMs);
  });
  const settled = promise.then(
    (value): Outcome<T> => ({ status: "fulfilled", value }),
    (reason: unknown): Outcome<T> => ({ status: "rejected", reason }),
  );
  const result = await Promise.race([settled, guard]);
  clearTimeout(timer);
  return { ...result, ms: performance.now() - start };
}

/** The error of a rejected outcome (fails the test on any other outcome). */
function rejection(result: Outcome<unknown>): Error {
  expect(result.status).toBe("rejected");
  return (result as { reason: Error }).reason;
}

/** Backend pids of the connections with this application_name, seen from the test's own pool. */
async function backends(appName: string): Promise<number[]> {
  const { rows } = await pool.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1 ORDER BY pid", [
    appName,
  ]);
  return rows.map((r: { pid: number }) => r.pid);
}

/** Waits (at most `ms`) for a backend to exit; true once it has. */
async function exited(pid: number, ms = 5000): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    const { rows } = await pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid]);
    if (rows.length === 0) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe("PostgresVectorStore bounds each statement on its own pool (queryTimeoutMs)", () => {
  // Generous for a loaded CI machine: a statement that is not blocked must finish within it.
  const BOUND = 1000;
  /** Far above BOUND plus any scheduling delay; an unbounded call is still caught by outcome()'s guard. */
  const WITHIN = BOUND + 5000;
  const records: VectorRecord[] = [
    { id: "a", text: "a", vector: [1, 0], metadata: {} },
    { id: "b", text: "b", vector: [0, 1], metadata: {} },
  ];

  /**
   * Creates the table and its two records through a store without a bound (creating a table is
   * a few statements, which a loaded machine may slow past any small bound), then has `store`
   * open its connection with one short statement.
   */
  async function seed(name: string, store: PostgresVectorStore): Promise<void> {
    const seeding = new PostgresVectorStore({ connectionString: url, table: name, queryTimeoutMs: 0 });
    try {
      await seeding.upsert(records);
    } finally {
      await seeding.close();
    }
    expect(await store.size()).toBe(2);
  }

  it(
    "ends a search and an upsert blocked past queryTimeoutMs with a RetrievalError naming the limit",
    async () => {
      const name = table();
      const store = new PostgresVectorStore({ connectionString: url, table: name, queryTimeoutMs: BOUND });
      await seed(name, store);
      const lock = await lockTable(name);
      let locked = true;
      try {
        const search = await outcome(store.search([1, 0]));
        const searchError = rejection(search);
        expect(searchError).toBeInstanceOf(RetrievalError);
        expect(searchError.message).toMatch(new RegExp(`search on "vectors_\\d+" .*queryTimeoutMs \\(${BOUND} ms\\)`));
        expect(search.ms).toBeGreaterThanOrEqual(BOUND - 1);
        expect(search.ms).toBeLessThan(WITHIN);

        const upsert = await outcome(store.upsert([{ id: "c", text: "c", vector: [1, 1], metadata: {} }]));
        const upsertError = rejection(upsert);
        expect(upsertError).toBeInstanceOf(RetrievalError);
        expect(upsertError.message).toMatch(new RegExp(`upsert on "vectors_\\d+" .*queryTimeoutMs \\(${BOUND} ms\\)`));
        expect(upsert.ms).toBeLessThan(WITHIN);

        await lock.release();
        locked = false;
        // The store still works, and the timed-out upsert wrote nothing.
        expect((await store.search([1, 0])).map((m) => m.id)).toEqual(["a", "b"]);
        expect(await store.size()).toBe(2);
      } finally {
        if (locked) await lock.release();
        await store.close();
      }
    },
    SLOW,
  );

  /** A store with only the client-side bound (query_timeout) and one connection, so a reused one could not hide. */
  const clientBoundStore = (name: string, appName: string, queryTimeoutMs: number) =>
    new PostgresVectorStore({
      connectionString: url,
      table: name,
      queryTimeoutMs,
      poolConfig: { max: 1, application_name: appName, statement_timeout: 0 },
    });

  it(
    "closes the connection the driver gave up on (query_timeout) and serves the next call on a new one",
    async () => {
      const name = table();
      const appName = "agentkit_query_timeout_search";
      const store = clientBoundStore(name, appName, BOUND);
      try {
        await seed(name, store);
        const [first, ...others] = await backends(appName);
        expect(others).toEqual([]);
        const lock = await lockTable(name);
        let result: Awaited<ReturnType<typeof outcome>>;
        try {
          result = await outcome(store.search([1, 0]));
        } finally {
          await lock.release();
        }
        const error = rejection(result);
        expect(error).toBeInstanceOf(RetrievalError);
        expect(error.message).toMatch(
          new RegExp(`did not answer within queryTimeoutMs \\(${BOUND} ms\\); the connection was closed`),
        );
        expect((error.cause as Error).message).toBe("Query read timeout");
        expect(result.ms).toBeLessThan(WITHIN);

        expect((await store.search([1, 0])).map((m) => m.id)).toEqual(["a", "b"]);
        // The old backend saw its client hang up and exited (a connection put back in the pool would
        // have lived on, answered the blocked statement and served this search).
        expect(await exited(first!)).toBe(true);
        const now = await backends(appName);
        expect(now).toHaveLength(1);
        expect(now[0]).not.toBe(first);
      } finally {
        await store.close();
      }
    },
    SLOW,
  );

  it(
    "gives up a timed-out upsert after one bound, with no ROLLBACK queued behind it, and writes nothing",
    async () => {
      const name = table();
      const appName = "agentkit_query_timeout_upsert";
      const bound = 2 * BOUND;
      const store = clientBoundStore(name, appName, bound);
      try {
        await seed(name, store);
        const [first] = await backends(appName);
        const lock = await lockTable(name);
        let result: Awaited<ReturnType<typeof outcome>>;
        try {
          result = await outcome(store.upsert([{ id: "c", text: "c", vector: [1, 1], metadata: {} }]));
        } finally {
          await lock.release();
        }
        const error = rejection(result);
        expect(error).toBeInstanceOf(RetrievalError);
        expect(error.message).toMatch(
          new RegExp(`upsert on "vectors_\\d+" timed out: .*queryTimeoutMs \\(${bound} ms\\)`),
        );
        // A ROLLBACK sent on the busy connection would wait behind the statement: a second bound.
        expect(result.ms).toBeGreaterThanOrEqual(bound - 1);
        expect(result.ms).toBeLessThan(2 * bound);
        expect(await store.size()).toBe(2);
        expect(await exited(first!)).toBe(true);
      } finally {
        await store.close();
      }
    },
    SLOW,
  );

  it(
    "lets PostgreSQL cancel a statement past statement_timeout and keeps that connection",
    async () => {
      const name = table();
      const appName = "agentkit_statement_timeout_test";
      // Only the server-side bound: PostgreSQL answers 57014 and the connection stays usable.
      const store = new PostgresVectorStore({
        connectionString: url,
        table: name,
        queryTimeoutMs: BOUND,
        poolConfig: { max: 1, application_name: appName, query_timeout: 0 },
      });
      try {
        await seed(name, store);
        const before = await backends(appName);
        const lock = await lockTable(name);
        let search: Awaited<ReturnType<typeof outcome>>;
        let upsert: Awaited<ReturnType<typeof outcome>>;
        try {
          search = await outcome(store.search([1, 0]));
          upsert = await outcome(store.upsert([{ id: "c", text: "c", vector: [1, 1], metadata: {} }]));
        } finally {
          await lock.release();
        }
        for (const [what, result] of [
          ["search", search],
          ["upsert", upsert],
        ] as const) {
          const error = rejection(result);
          expect(error).toBeInstanceOf(RetrievalError);
          expect(error.message).toMatch(
            new RegExp(
              `${what} on "vectors_\\d+" was cancelled by PostgreSQL: .*statement_timeout is queryTimeoutMs \\(${BOUND} ms\\)`,
            ),
          );
          expect((error.cause as pg.DatabaseError).code).toBe("57014");
          expect(result.ms).toBeLessThan(WITHIN);
        }
        expect(await store.size()).toBe(2);
        expect(await backends(appName)).toEqual(before);
      } finally {
        await store.close();
      }
    },
    SLOW,
  );

  it(
    "ends a call to a stopped server process (SIGSTOP) within queryTimeoutMs and recovers after it",
    async () => {
      const name = table();
      const appName = "agentkit_sigstop_test";
      const store = new PostgresVectorStore({
        connectionString: url,
        table: name,
        queryTimeoutMs: BOUND,
        poolConfig: { max: 1, application_name: appName },
      });
      try {
        await seed(name, store);
        const [pid] = await backends(appName);
        // The backend serving the store, in the cluster this file started: it stops answering.
        process.kill(pid!, "SIGSTOP");
        let result: Awaited<ReturnType<typeof outcome>>;
        try {
          result = await outcome(store.search([1, 0]));
        } finally {
          process.kill(pid!, "SIGCONT");
        }
        const error = rejection(result);
        expect(error).toBeInstanceOf(RetrievalError);
        expect(error.message).toMatch(
          new RegExp(`search on "vectors_\\d+" timed out: .*within queryTimeoutMs \\(${BOUND} ms\\)`),
        );
        expect(result.ms).toBeLessThan(WITHIN);
        expect((await store.search([1, 0])).map((m) => m.id)).toEqual(["a", "b"]);
        expect(await exited(pid!)).toBe(true);
      } finally {
        await store.close();
      }
    },
    SLOW,
  );

  it(
    "applies the bound and the own-pool defaults to its own pool only; a caller's pool is left as it is",
    async () => {
      const name = table();
      const callerPool = new pg.Pool({ connectionString: url, max: 2 });
      const callerOptions = { ...callerPool.options };
      const bounded = new PostgresVectorStore({ connectionString: url, table: name, queryTimeoutMs: BOUND });
      const unbounded = new PostgresVectorStore({ connectionString: url, table: name, queryTimeoutMs: 0 });
      const borrowing = new PostgresVectorStore({ pool: callerPool, table: name });
      const defaults = new PostgresVectorStore({ connectionString: url, table: name });
      const overridden = new PostgresVectorStore({
        connectionString: url,
        table: name,
        poolConfig: { keepAlive: false, statement_timeout: 5000, connectionTimeoutMillis: 2000 },
      });
      const options = (store: PostgresVectorStore) => (store as unknown as { pool: pg.Pool }).pool.options;
      try {
        expect(options(defaults)).toMatchObject({
          connectionTimeoutMillis: 10_000,
          keepAlive: true,
          keepAliveInitialDelayMillis: 10_000,
          statement_timeout: 30_000,
          query_timeout: 30_000,
        });
        expect(options(overridden)).toMatchObject({
          connectionTimeoutMillis: 2000,
          keepAlive: false,
          keepAliveInitialDelayMillis: 10_000,
          statement_timeout: 5000,
          query_timeout: 30_000,
        });
        expect(options(unbounded)).not.toHaveProperty("statement_timeout");
        expect(options(unbounded)).not.toHaveProperty("query_timeout");
        expect(options(borrowing)).toBe(callerPool.options);

        await borrowing.upsert(records);
        const lock = await lockTable(name);
        let settled = 0;
        const waiting = [unbounded.search([1, 0]), borrowing.search([0, 1])].map((p) => p.finally(() => settled++));
        for (const p of waiting) p.catch(() => undefined); // inspected below
        let timedOut: Awaited<ReturnType<typeof outcome>>;
        try {
          timedOut = await outcome(bounded.search([1, 0]));
          // The bounded store gave up; the other two, blocked on the same lock, are still waiting.
          expect(settled).toBe(0);
        } finally {
          await lock.release();
        }
        expect(rejection(timedOut)).toBeInstanceOf(RetrievalError);
        const [fromUnbounded, fromBorrowing] = await Promise.all(waiting);
        expect(fromUnbounded!.map((m) => m.id)).toEqual(["a", "b"]);
        expect(fromBorrowing!.map((m) => m.id)).toEqual(["b", "a"]);
        expect(callerPool.options).toEqual(callerOptions);
        expect((await callerPool.query("SHOW statement_timeout")).rows).toEqual([{ statement_timeout: "0" }]);
      } finally {
        await Promise.all([bounded, unbounded, borrowing, defaults, overridden].map((s) => s.close()));
        await callerPool.end();
      }
    },
    SLOW,
  );

  it(
    "rejects a bad queryTimeoutMs with ConfigurationError, and one given with a caller's pool",
    async () => {
      const bad: [unknown, RegExp][] = [
        [-1, /queryTimeoutMs: must be positive \(or 0 for no limit\)/],
        [1.5, /queryTimeoutMs: must be a whole number of milliseconds/],
        ["300", /queryTimeoutMs: must be a number of milliseconds/],
        [Number.NaN, /queryTimeoutMs: must be a number of milliseconds/],
        [Number.POSITIVE_INFINITY, /queryTimeoutMs: must be a number of milliseconds/],
        [2 ** 31, /queryTimeoutMs: must be at most 2147483647 ms/],
      ];
      for (const [queryTimeoutMs, message] of bad) {
        const make = () => new PostgresVectorStore({ connectionString: url, queryTimeoutMs } as never);
        expect(make).toThrow(ConfigurationError);
        expect(make).toThrow(message);
      }
      expect(() => new PostgresVectorStore({ pool, queryTimeoutMs: 1000 })).toThrow(
        /queryTimeoutMs applies only with connectionString/,
      );
      // 0 (no limit) and the largest bound are accepted.
      for (const queryTimeoutMs of [0, 1, 2 ** 31 - 1]) {
        await new PostgresVectorStore({ connectionString: url, queryTimeoutMs }).close();
      }
    },
    SLOW,
  );
});
