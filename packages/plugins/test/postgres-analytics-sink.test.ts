import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import pg from "pg";
import { ConfigurationError, FunctionTool, InMemoryRunner, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import { AnalyticsPlugin, type AnalyticsRow } from "../src/index.js";
import { PostgresAnalyticsSink, PostgresSinkError } from "../src/analytics/postgres/index.js";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";

let cluster: PostgresCluster;
let url = "";
let admin: pg.Client;

beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase("analytics");
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await cluster?.stop();
});

function weatherAgent() {
  const tool = new FunctionTool({
    name: "get_weather",
    description: "Weather",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, forecast: "sunny" }),
  });
  const model = new ScriptedModel({
    steps: [ScriptedModel.functionCall("get_weather", { city: "Paris" }), ScriptedModel.text("Sunny in Paris.")],
  });
  return new LlmAgent({ name: "weather_agent", model, tools: [tool] });
}

const row = (over: Partial<AnalyticsRow> = {}): AnalyticsRow => ({
  timestamp: new Date().toISOString(),
  event_type: "STATE_DELTA",
  app_name: "a",
  agent: null,
  session_id: "s",
  invocation_id: "i",
  user_id: "u",
  model: null,
  tool_name: null,
  content: null,
  attributes: null,
  latency_ms: null,
  status: "OK",
  error_message: null,
  is_truncated: false,
  ...over,
});

describe("PostgresAnalyticsSink", () => {
  it("creates the table on start and stores a run's rows in batches", async () => {
    const sink = new PostgresAnalyticsSink({ connectionString: url, tableName: "run_events", schema: "analytics" });
    const plugin = new AnalyticsPlugin({ sink, batchSize: 3, customTags: { env: "test" } });
    const runner = new InMemoryRunner({ agent: weatherAgent(), appName: "pg_app", plugins: [plugin] });
    const session = await runner.sessionService.createSession({ appName: "pg_app", userId: "u1" });
    for await (const _e of runner.runAsync({ userId: "u1", sessionId: session.id, newMessage: "Weather in Paris?" })) {
      // consume
    }
    await runner.close();
    expect(plugin.droppedRows).toBe(0);
    const { rows } = await admin.query<{
      event_type: string;
      tool_name: string | null;
      latency_ms: string | null;
      attributes: string | null;
      timestamp: Date;
      is_truncated: boolean;
    }>(
      'SELECT event_type, tool_name, latency_ms, attributes, "timestamp", is_truncated FROM analytics.run_events ' +
        'ORDER BY "timestamp", event_type',
    );
    expect(rows.length).toBe(plugin.writtenRows);
    expect(new Set(rows.map((r) => r.event_type))).toEqual(
      new Set([
        "USER_MESSAGE_RECEIVED",
        "INVOCATION_STARTING",
        "INVOCATION_COMPLETED",
        "AGENT_STARTING",
        "AGENT_COMPLETED",
        "LLM_REQUEST",
        "LLM_RESPONSE",
        "TOOL_STARTING",
        "TOOL_COMPLETED",
      ]),
    );
    expect(rows.find((r) => r.event_type === "TOOL_COMPLETED")!.tool_name).toBe("get_weather");
    expect(rows[0]!.timestamp).toBeInstanceOf(Date);
    expect(JSON.parse(rows[0]!.attributes!).custom_tags).toEqual({ env: "test" });
    const index = await admin.query(
      "SELECT indexdef FROM pg_indexes WHERE schemaname = 'analytics' AND indexname = 'run_events_clustering_idx'",
    );
    expect(String(index.rows[0]?.indexdef)).toContain("(event_type, agent, user_id)");
  });

  it("adds missing columns to an older table and never stores a retried row twice", async () => {
    await admin.query(
      'CREATE TABLE old_events (row_id UUID PRIMARY KEY, "timestamp" TIMESTAMPTZ NOT NULL, event_type TEXT NOT NULL, ' +
        "app_name TEXT NOT NULL, session_id TEXT NOT NULL, invocation_id TEXT NOT NULL, user_id TEXT NOT NULL, " +
        "status TEXT NOT NULL, is_truncated BOOLEAN NOT NULL)",
    );
    const sink = new PostgresAnalyticsSink({ connectionString: url, tableName: "old_events" });
    await sink.prepare({ autoSchemaUpgrade: true, clusteringFields: [] });
    const columns = await admin.query<{ column_name: string }>(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'old_events'",
    );
    expect(columns.rows.map((c) => c.column_name)).toEqual(
      expect.arrayContaining(["content", "attributes", "latency_ms", "tool_name"]),
    );
    const batch = [row({ content: "one", latency_ms: 5 }), row({ content: "two" })];
    await sink.writeRows(batch);
    await sink.writeRows(batch); // a retry of a batch that had landed
    const stored = await admin.query<{ content: string; latency_ms: string | null }>(
      "SELECT content, latency_ms FROM old_events ORDER BY content",
    );
    expect(stored.rows).toEqual([
      { content: "one", latency_ms: "5" },
      { content: "two", latency_ms: null },
    ]);
    await sink.close();
  });

  it("retries a batch the database refuses, then drops and reports it; the next batch lands", async () => {
    const sink = new PostgresAnalyticsSink({ connectionString: url, tableName: "retry_events" });
    await sink.prepare({ autoSchemaUpgrade: true, clusteringFields: [] });
    await admin.query("ALTER TABLE retry_events ADD CONSTRAINT no_x CHECK (app_name <> 'blocked')");
    const errors: unknown[] = [];
    const plugin = new AnalyticsPlugin({
      sink,
      retry: { initialDelay: 20, maxAttempts: 2 },
      onError: (e) => errors.push(e),
    });
    // Fails both attempts: dropped, counted, reported with the database's message.
    const writeOne = async (appName: string) => {
      const runner = new InMemoryRunner({
        agent: new LlmAgent({ name: "a", model: new ScriptedModel({ steps: [ScriptedModel.text("ok")] }) }),
        appName,
        plugins: [plugin],
      });
      const session = await runner.sessionService.createSession({ appName, userId: "u" });
      for await (const _e of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: "hi" })) {
        // consume
      }
      await plugin.flush();
    };
    await writeOne("blocked");
    expect(errors[0]).toBeInstanceOf(PostgresSinkError);
    expect((errors[0] as Error).message).toMatch(/insert into "public"."retry_events" failed: .*no_x/);
    expect(plugin.writtenRows).toBe(0);
    await writeOne("allowed");
    expect(plugin.writtenRows).toBeGreaterThan(0);
    const { rows } = await admin.query<{ n: string }>("SELECT count(*)::text AS n FROM retry_events");
    expect(Number(rows[0]!.n)).toBe(plugin.writtenRows);
    await plugin.close();
  });

  it("rejects bad options and reports an unreachable database as a typed error", async () => {
    expect(() => new PostgresAnalyticsSink({})).toThrow(ConfigurationError);
    expect(() => new PostgresAnalyticsSink({ connectionString: url, tableName: "bad; DROP" })).toThrow(
      /tableName must be letters/,
    );
    const sink = new PostgresAnalyticsSink({
      connectionString: `postgres://postgres@127.0.0.1:${cluster.port}/no_such_db`,
    });
    await expect(sink.prepare({ autoSchemaUpgrade: true, clusteringFields: [] })).rejects.toThrow(PostgresSinkError);
    await sink.close();
  });

  it("gives a pool of its own the own-pool defaults, lets poolConfig override them, and leaves a caller's pool as it is", async () => {
    const callerPool = new pg.Pool({ connectionString: url, max: 2 });
    const callerOptions = { ...callerPool.options };
    const own = new PostgresAnalyticsSink({ connectionString: url });
    const configured = new PostgresAnalyticsSink({
      poolConfig: { connectionString: url, keepAlive: false, connectionTimeoutMillis: 2000 },
    });
    const borrowing = new PostgresAnalyticsSink({ pool: callerPool });
    const options = (sink: PostgresAnalyticsSink) => (sink as unknown as { pool: pg.Pool }).pool.options;
    try {
      expect(options(own)).toMatchObject({
        connectionString: url,
        connectionTimeoutMillis: 10_000,
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      });
      expect(options(configured)).toMatchObject({
        connectionTimeoutMillis: 2000,
        keepAlive: false,
        keepAliveInitialDelayMillis: 10_000,
      });
      expect(options(borrowing)).toBe(callerPool.options);
      expect(callerPool.options).toEqual(callerOptions);
    } finally {
      await Promise.all([own.close(), configured.close(), borrowing.close()]);
      await callerPool.end();
    }
  });
});
