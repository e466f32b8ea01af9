import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import { Client } from "pg";
import { PostgresSessionService } from "../src/postgres/index.js";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";
import { expectIntactAfterKilledWriter } from "./fixtures/crash-checks.js";
import { startWriterProcess, stopWriters, type WriterProcess } from "./fixtures/writer-process.js";

// Real processes against a throwaway cluster: one killed with SIGKILL in the middle of its
// appends, and two appending to one session at once.

const WRITER = join(import.meta.dirname, "fixtures", "sql-writer.ts");
let cluster: PostgresCluster;
const children: WriterProcess[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await stopWriters(children);
  await cluster?.stop();
});

function startWriter(
  url: string,
  appName: string,
  sessionId: string,
  writer: string,
  count: number,
  env: Record<string, string> = {},
): WriterProcess {
  const w = startWriterProcess(WRITER, ["postgres", url, appName, sessionId, writer, String(count)], env);
  children.push(w);
  return w;
}

describe("PostgresSessionService crash safety", () => {
  it("opens consistent after the writing process is killed mid-append: every event with its state", async () => {
    const url = await cluster.createDatabase("crash");
    const setup = new PostgresSessionService({ connectionString: url });
    await setup.createSession({ appName: "crash", userId: "u1", sessionId: "s1" });
    await setup.close();

    const writer = startWriter(url, "crash", "s1", "W", 1_000_000);
    await writer.waitFor(200);
    writer.child.kill("SIGKILL");
    expect(await writer.exited).toBeNull();
    const acked = writer.acked();

    const reopened = new PostgresSessionService({ connectionString: url });
    try {
      // The server may take a moment to notice the dead connection and roll its transaction back;
      // the session row lock it held is released then, so this read and the append below succeed.
      const n = await expectIntactAfterKilledWriter(reopened, acked);
      // The stored rows agree: one event row per event (the writer's n and the one written after), numbered without gaps.
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ seq: number }>(
          "SELECT seq FROM agentkit_events WHERE app_name = 'crash' AND session_id = 's1' ORDER BY seq",
        );
        expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
      } finally {
        await client.end();
      }
    } finally {
      await reopened.close();
    }
  });
});

describe("PostgresSessionService with two processes", () => {
  it("loses no event when two processes append to one session: stale writers get StaleSessionError and retry", async () => {
    const url = await cluster.createDatabase("procs");
    const setup = new PostgresSessionService({ connectionString: url });
    try {
      await setup.createSession({ appName: "procs", userId: "u1", sessionId: "s1" });
      const writers = [
        startWriter(url, "procs", "s1", "P", 120, { GO_SIGNAL: "1" }),
        startWriter(url, "procs", "s1", "Q", 120, { GO_SIGNAL: "1" }),
      ];
      // Both have loaded their session before either appends, so they collide from the first event on.
      await Promise.all(writers.map((w) => w.ready));
      for (const w of writers) w.go();
      const codes = await Promise.all(writers.map((w) => w.exited));
      expect(codes).toEqual([0, 0]);
      // Each writer reports how often it was stale and reloaded; together they must have collided.
      const staleCounts = writers.map((w) => Number(/stale (\d+)/.exec(w.stderr())?.[1] ?? "NaN"));
      expect(staleCounts.every((c) => Number.isInteger(c))).toBe(true);
      expect(staleCounts[0]! + staleCounts[1]!).toBeGreaterThan(0);
      const stored = (await setup.getSession({ appName: "procs", userId: "u1", sessionId: "s1" }))!;
      expect(stored.events).toHaveLength(240);
      expect(new Set(stored.events.map((e) => e.id)).size).toBe(240);
      for (const name of ["P", "Q"]) {
        expect(stored.events.filter((e) => e.author === name).map((e) => e.id)).toEqual(
          Array.from({ length: 120 }, (_, i) => `${name}-${i}`),
        );
        expect(stored.state[name]).toBe(119);
        expect(stored.state[`app:${name}`]).toBe(119);
        expect(stored.state[`user:${name}`]).toBe(119);
        for (let i = 0; i < 120; i++) expect(stored.state[`${name}-${i}`]).toBe(true);
      }
      expect(stored.state["temp:t"]).toBeUndefined();
    } finally {
      await setup.close();
    }
  });
});
