// Two real `agentkit api-server` processes on one PostgreSQL database, 50 concurrent /run calls on
// one session alternating between them (issue 19's measurement): with the store's session lock
// every run succeeds and the session holds each turn whole, in order, with no orphan message.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";
import { EXAMPLES_DIR, OFFLINE_ENV, startCli, type CliProcess } from "./support/cli-process.js";

let cluster: PostgresCluster;
const children: CliProcess[] = [];

beforeAll(async () => {
  cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  await cluster?.stop();
});

function replica(databaseUrl: string, extra: string[] = []): CliProcess {
  const p = startCli(
    [
      "api-server",
      EXAMPLES_DIR,
      "--port",
      "0",
      "--session-service-uri",
      databaseUrl,
      "--artifact-service-uri",
      "memory://",
      "--max-connections-per-client",
      "0",
      ...extra,
    ],
    OFFLINE_ENV,
  );
  children.push(p);
  return p;
}

interface StoredEvent {
  id: string;
  invocationId: string;
  author: string;
  errorCode?: string;
  content?: { parts?: { text?: string }[] };
}

describe("several replicas on one PostgreSQL database", () => {
  it("serializes 50 concurrent runs on one session across two api-server processes: all succeed, no orphan turns", async () => {
    const url = await cluster.createDatabase("replicas");
    const [a, b] = [replica(url), replica(url)];
    const urls = await Promise.all([a.listening(), b.listening()]);
    const created = await fetch(`${urls[0]}/apps/assistant/users/u/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sessionId: "shared" }),
    });
    expect(created.status).toBe(200);

    const runs = 50;
    const statuses = await Promise.all(
      Array.from({ length: runs }, async (_, i) => {
        const res = await fetch(`${urls[i % 2]}/run`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            appName: "assistant",
            userId: "u",
            sessionId: "shared",
            newMessage: { role: "user", parts: [{ text: `message ${i}` }] },
          }),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses).toEqual(Array.from({ length: runs }, () => 200));

    const session = (await (await fetch(`${urls[1]}/apps/assistant/users/u/sessions/shared`)).json()) as {
      events: StoredEvent[];
    };
    const events = session.events;
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events.some((e) => e.errorCode)).toBe(false);
    // Turns do not interleave: each invocation's events are contiguous, start with the user's
    // message and have an answer after it.
    const turns: StoredEvent[][] = [];
    for (const event of events) {
      const last = turns.at(-1);
      if (last && last[0]!.invocationId === event.invocationId) last.push(event);
      else turns.push([event]);
    }
    expect(turns).toHaveLength(runs);
    expect(new Set(turns.map((t) => t[0]!.invocationId)).size).toBe(runs);
    for (const turn of turns) {
      expect(turn[0]!.author).toBe("user");
      expect(turn.length).toBeGreaterThanOrEqual(2);
      expect(turn.at(-1)!.author).not.toBe("user");
    }
    expect(turns.map((t) => t[0]!.content?.parts?.[0]?.text).sort()).toEqual(
      Array.from({ length: runs }, (_, i) => `message ${i}`).sort(),
    );
  }, 300_000);
});
