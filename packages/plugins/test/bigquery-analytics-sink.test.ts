import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { BigQuery } from "@google-cloud/bigquery";
import { OAuth2Client } from "google-auth-library";
import { FunctionTool, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import { AnalyticsPlugin, ANALYTICS_COLUMNS, type AnalyticsRow } from "../src/index.js";
import { BigQueryAnalyticsSink, BigQuerySinkError } from "../src/analytics/bigquery/index.js";
import { FakeBigQueryServer } from "./fixtures/fake-bigquery-server.js";
import { runOnce } from "./helpers.js";

let server: FakeBigQueryServer;
beforeAll(async () => {
  server = await new FakeBigQueryServer().start();
});
afterAll(() => server.close());

function client(): BigQuery {
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: "test-token", expiry_date: Date.now() + 3_600_000 });
  return new BigQuery({
    projectId: "proj",
    apiEndpoint: server.url,
    authClient: auth,
    retryOptions: { autoRetry: false },
  });
}

function agent() {
  const tool = new FunctionTool({
    name: "add",
    description: "Adds",
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => ({ sum: a + b }),
  });
  return new LlmAgent({
    name: "calc",
    model: new ScriptedModel({ steps: [ScriptedModel.functionCall("add", { a: 1, b: 2 }), ScriptedModel.text("3")] }),
    tools: [tool],
  });
}

describe("BigQueryAnalyticsSink through @google-cloud/bigquery", () => {
  it("creates the dataset and a partitioned, clustered table, then streams the rows", async () => {
    const sink = new BigQueryAnalyticsSink({ datasetId: "analytics", client: client() });
    const plugin = new AnalyticsPlugin({ sink, clusteringFields: ["event_type", "agent"] });
    const { runner } = await runOnce(agent(), [plugin], "1+2?");
    await runner.close();
    const table = server.table("proj", "analytics", "agent_events")!;
    expect(table.schema.fields.map((f) => f.name)).toEqual(ANALYTICS_COLUMNS.map((c) => c.name));
    expect(table.schema.fields.find((f) => f.name === "latency_ms")!.type).toBe("INT64");
    expect(table.clustering).toEqual({ fields: ["event_type", "agent"] });
    expect(table.timePartitioning).toEqual({ type: "DAY", field: "timestamp" });
    const rows = table.rows.map((r) => r.json as unknown as AnalyticsRow);
    expect(rows.map((r) => r.event_type)).toContain("TOOL_COMPLETED");
    expect(rows.find((r) => r.event_type === "TOOL_COMPLETED")!.content).toBe('{"sum":3}');
    expect(table.rows.every((r) => typeof r.insertId === "string")).toBe(true);
    expect(server.authorizations.every((a) => a === "Bearer test-token")).toBe(true);
  });

  it("adds missing columns to an older table when autoSchemaUpgrade is on", async () => {
    server.datasets.add("proj/old");
    server.tables.set("proj/old/agent_events", {
      schema: {
        fields: [
          { name: "timestamp", type: "TIMESTAMP" },
          { name: "event_type", type: "STRING" },
        ],
      },
      rows: [],
    });
    const sink = new BigQueryAnalyticsSink({ datasetId: "old", client: client() });
    const plugin = new AnalyticsPlugin({ sink, eventAllowlist: ["USER_MESSAGE_RECEIVED"] });
    const { runner } = await runOnce(agent(), [plugin], "hi");
    await runner.close();
    const table = server.table("proj", "old", "agent_events")!;
    expect(table.schema.fields.map((f) => f.name)).toEqual(ANALYTICS_COLUMNS.map((c) => c.name));
    expect(table.rows).toHaveLength(1);
  });

  it("retries a failed insert with the same insert ids, so nothing is duplicated", async () => {
    const sink = new BigQueryAnalyticsSink({ datasetId: "retry", client: client() });
    server.failNextInserts = 1;
    server.failMode = "after";
    const plugin = new AnalyticsPlugin({
      sink,
      eventAllowlist: ["USER_MESSAGE_RECEIVED", "INVOCATION_COMPLETED"],
      retry: { initialDelay: 1 },
    });
    const { runner } = await runOnce(agent(), [plugin], "hi");
    await runner.close();
    expect(server.table("proj", "retry", "agent_events")!.rows).toHaveLength(2);
    expect(plugin.droppedRows).toBe(0);
    server.failMode = "before";
  });

  it("reports row-level insert errors as BigQuerySinkError", async () => {
    server.datasets.add("proj/strict");
    server.tables.set("proj/strict/agent_events", {
      schema: { fields: [{ name: "timestamp", type: "TIMESTAMP" }] },
      rows: [],
    });
    const sink = new BigQueryAnalyticsSink({ datasetId: "strict", client: client() });
    await sink.prepare({ autoSchemaUpgrade: false, clusteringFields: [] });
    const row = { timestamp: new Date().toISOString(), event_type: "USER_MESSAGE_RECEIVED" } as AnalyticsRow;
    await expect(sink.writeRows([row])).rejects.toThrow(BigQuerySinkError);
    await expect(sink.writeRows([row])).rejects.toThrow(/no such field: event_type/);
    await expect(
      new BigQueryAnalyticsSink({ datasetId: "absent", createDataset: false, client: client() }).prepare({
        autoSchemaUpgrade: true,
        clusteringFields: [],
      }),
    ).rejects.toThrow(/does not exist/);
    expect(() => new BigQueryAnalyticsSink({} as never)).toThrow(TypeError);
  });
});
