// Session backends compared: in-memory, SQLite (a file, WAL), PostgreSQL (a throwaway local
// cluster with durable settings, or AGENTKIT_BENCH_POSTGRES_URL) and MongoDB (the MongoDB in
// AGENTKIT_BENCH_MONGODB_URL, else agentkit's in-memory wire-protocol TEST server: those
// figures measure the driver plus that test server, not a real MongoDB; see README).
//   1. appendEvent/s: one writer, sequential, round-robin over 100 sessions (each append is a
//      committed transaction with a small state delta);
//   2. getSession/s: whole sessions of 20 events, read at random;
//   3. growth: one session grows to 5,000 events; time of getSession (all events, and the
//      last 20 with numRecentEvents) at each checkpoint.
// Usage: pnpm bench:sessions [-- --appends 2000 --reads 2000 --events 5000 --backends in-memory,sqlite,postgres,mongodb]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hrtime } from "node:process";
import { createEvent, type BaseSessionService, type Session } from "@agentkit/core";
import { InMemorySessionService } from "@agentkit/sessions";
import { MongoSessionService } from "@agentkit/sessions/mongodb";
import { PostgresSessionService } from "@agentkit/sessions/postgres";
import { SqliteSessionService } from "@agentkit/sessions/sqlite";
import { MongoWireServer } from "@agentkit/test-support/mongodb";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const APPENDS = arg("appends", 2000);
const READS = arg("reads", 2000);
const EVENTS = arg("events", 5000);
const BACKENDS = new Set(
  (process.argv.includes("--backends")
    ? (process.argv[process.argv.indexOf("--backends") + 1] ?? "")
    : "in-memory,sqlite,postgres,mongodb"
  )
    .split(",")
    .map((b) => b.trim()),
);
const CHECKPOINTS = [100, 500, 1000, 2000, 3000, 4000, 5000].filter((n) => n <= EVENTS);

const seconds = (t0: bigint) => Number(hrtime.bigint() - t0) / 1e9;

function event(i: number) {
  return createEvent({
    author: i % 2 ? "assistant" : "user",
    content: { role: i % 2 ? "model" : "user", parts: [{ text: `message ${i}: ${"lorem ipsum ".repeat(8)}` }] },
    actions: { stateDelta: { turn: i, "user:last_seen": i } },
  });
}

async function appendRate(service: BaseSessionService): Promise<number> {
  const sessions: Session[] = [];
  for (let i = 0; i < 100; i++)
    sessions.push(await service.createSession({ appName: "bench-append", userId: `u${i % 10}` }));
  for (let i = 0; i < 100; i++) await service.appendEvent({ session: sessions[i % 100]!, event: event(i) }); // warm-up
  const t0 = hrtime.bigint();
  for (let i = 0; i < APPENDS; i++) await service.appendEvent({ session: sessions[i % 100]!, event: event(i) });
  return APPENDS / seconds(t0);
}

async function readRate(service: BaseSessionService): Promise<number> {
  const ids: string[] = [];
  for (let s = 0; s < 50; s++) {
    const session = await service.createSession({ appName: "bench-read", userId: "u" });
    for (let i = 0; i < 20; i++) await service.appendEvent({ session, event: event(i) });
    ids.push(session.id);
  }
  const read = (i: number) =>
    service.getSession({ appName: "bench-read", userId: "u", sessionId: ids[(i * 7919) % ids.length]! });
  for (let i = 0; i < 100; i++) await read(i);
  const t0 = hrtime.bigint();
  for (let i = 0; i < READS; i++) await read(i);
  return READS / seconds(t0);
}

/** Median ms of `n` calls. */
async function medianMs(n: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = hrtime.bigint();
    await fn();
    times.push(seconds(t0) * 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)]!;
}

async function growth(service: BaseSessionService): Promise<Map<number, { all: number; recent: number }>> {
  const session = await service.createSession({ appName: "bench-growth", userId: "u" });
  const key = { appName: "bench-growth", userId: "u", sessionId: session.id };
  const out = new Map<number, { all: number; recent: number }>();
  let appended = 0;
  for (const checkpoint of CHECKPOINTS) {
    for (; appended < checkpoint; appended++) await service.appendEvent({ session, event: event(appended) });
    const all = await medianMs(9, () => service.getSession(key));
    const recent = await medianMs(21, () => service.getSession({ ...key, config: { numRecentEvents: 20 } }));
    out.set(checkpoint, { all, recent });
  }
  return out;
}

interface Row {
  name: string;
  appends: number;
  reads: number;
  growth: Map<number, { all: number; recent: number }>;
}

async function measure(name: string, service: BaseSessionService): Promise<Row> {
  try {
    const appends = await appendRate(service);
    const reads = await readRate(service);
    const g = await growth(service);
    console.log(`${name}: ${appends.toFixed(0)} appendEvent/s, ${reads.toFixed(0)} getSession/s (20 events)`);
    return { name, appends, reads, growth: g };
  } finally {
    await service.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-bench-sqlite-"));
  const external = process.env.AGENTKIT_BENCH_POSTGRES_URL;
  const externalMongo = process.env.AGENTKIT_BENCH_MONGODB_URL;
  // Durable settings (unlike the tests' fsync=off), so the figures are what a real server costs.
  const cluster: PostgresCluster | undefined =
    external || !BACKENDS.has("postgres")
      ? undefined
      : await startPostgres({ durable: true, prefix: "agentkit-bench-pg-" });
  const clusterUrl = cluster ? await cluster.createDatabase("bench") : undefined;
  const wire = externalMongo || !BACKENDS.has("mongodb") ? undefined : await MongoWireServer.start();
  try {
    const rows: Row[] = [];
    if (BACKENDS.has("in-memory")) rows.push(await measure("in-memory", new InMemorySessionService()));
    if (BACKENDS.has("sqlite"))
      rows.push(await measure("SQLite", new SqliteSessionService({ path: join(dir, "bench.db") })));
    if (BACKENDS.has("postgres"))
      rows.push(await measure("PostgreSQL", new PostgresSessionService({ connectionString: external ?? clusterUrl! })));
    if (BACKENDS.has("mongodb")) {
      const name = externalMongo ? "MongoDB" : "Mongo wire TEST server";
      rows.push(
        await measure(
          name,
          new MongoSessionService({ uri: externalMongo ?? wire!.uri, dbName: `agentkit_bench_${process.pid}` }),
        ),
      );
    }

    console.log(`\n| backend | appendEvent/s | getSession/s (20 events) |\n| --- | ---: | ---: |`);
    for (const r of rows) console.log(`| ${r.name} | ${r.appends.toFixed(0)} | ${r.reads.toFixed(0)} |`);
    console.log(`\ngetSession ms (median) as one session grows: all events / last 20 (numRecentEvents)\n`);
    console.log(
      `| events | ${rows.map((r) => r.name).join(" | ")} |\n| ---: | ${rows.map(() => "---:").join(" | ")} |`,
    );
    for (const checkpoint of CHECKPOINTS) {
      const cells = rows.map((r) => {
        const g = r.growth.get(checkpoint)!;
        return `${g.all.toFixed(2)} / ${g.recent.toFixed(2)}`;
      });
      console.log(`| ${checkpoint.toLocaleString("en-US")} | ${cells.join(" | ")} |`);
    }
  } finally {
    await wire?.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
