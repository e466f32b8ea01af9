import { randomUUID } from "node:crypto";
import { BigQuery, type BigQueryOptions, type Dataset, type Table } from "@google-cloud/bigquery";
import { AgentKitError } from "@agentkit/core";
import { abortable } from "../abortable.js";
import { ANALYTICS_COLUMNS, type AnalyticsRow, type AnalyticsSink } from "../analytics-row.js";

export interface BigQueryAnalyticsSinkOptions {
  datasetId: string;
  /** Default `agent_events`. */
  tableId?: string;
  /** The project of the dataset (default: the client's). */
  projectId?: string;
  /** Dataset location when the sink creates it (e.g. `US`, `EU`). */
  location?: string;
  /** A BigQuery connection id, recorded in the table description for object-table joins of multimodal content. */
  connectionId?: string;
  /** Create the dataset when missing (default true). */
  createDataset?: boolean;
  /** A client you own (not closed by the sink)… */
  client?: BigQuery;
  /** …or options for one (credentials, keyFilename, authClient, apiEndpoint, projectId). */
  clientOptions?: BigQueryOptions;
}

/** The BigQuery side failed (insert errors, table creation). */
export class BigQuerySinkError extends AgentKitError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("BIGQUERY_SINK_ERROR", message, options);
  }
}

const BIGQUERY_TYPES = { TIMESTAMP: "TIMESTAMP", STRING: "STRING", INTEGER: "INT64", BOOLEAN: "BOOL" } as const;

/**
 * Analytics rows to a BigQuery table through the official client (streaming inserts). The
 * table is created on first use, partitioned by day on `timestamp` and clustered by the
 * plugin's clustering fields; with `autoSchemaUpgrade` an older table gains missing columns.
 * Each row keeps one insert id across retries, so BigQuery de-duplicates a retried batch.
 */
export class BigQueryAnalyticsSink implements AnalyticsSink {
  private readonly client: BigQuery;
  private readonly dataset: Dataset;
  private readonly table: Table;
  private readonly options: BigQueryAnalyticsSinkOptions;
  private readonly insertIds = new WeakMap<AnalyticsRow, string>();

  constructor(options: BigQueryAnalyticsSinkOptions) {
    if (!options?.datasetId) throw new TypeError("BigQueryAnalyticsSink needs a datasetId.");
    this.options = options;
    this.client = options.client ?? new BigQuery(options.clientOptions ?? {});
    this.dataset = this.client.dataset(options.datasetId, {
      ...(options.projectId ? { projectId: options.projectId } : {}),
      ...(options.location ? { location: options.location } : {}),
    });
    this.table = this.dataset.table(options.tableId ?? "agent_events");
  }

  /** An aborted `signal` (AnalyticsPlugin's close timeout) ends the wait at once. */
  prepare({
    autoSchemaUpgrade,
    clusteringFields,
    signal,
  }: {
    autoSchemaUpgrade: boolean;
    clusteringFields: readonly string[];
    signal?: AbortSignal;
  }): Promise<void> {
    return abortable(this.prepareTable(autoSchemaUpgrade, clusteringFields), signal);
  }

  private async prepareTable(autoSchemaUpgrade: boolean, clusteringFields: readonly string[]): Promise<void> {
    try {
      const [datasetExists] = await this.dataset.exists();
      if (!datasetExists) {
        if (this.options.createDataset === false)
          throw new BigQuerySinkError(
            `BigQuery dataset ${this.options.datasetId} does not exist (createDataset is false).`,
          );
        await this.dataset
          .create(this.options.location ? { location: this.options.location } : {})
          .catch((error: { code?: number }) => {
            if (error.code !== 409) throw error;
          });
      }
      const [tableExists] = await this.table.exists();
      if (!tableExists) {
        await this.table
          .create({
            schema: { fields: expectedFields() },
            timePartitioning: { type: "DAY", field: "timestamp" },
            ...(clusteringFields.length ? { clustering: { fields: clusteringFields.slice(0, 4) } } : {}),
            description:
              `agentkit agent ` +
              `analytics${this.options.connectionId ? ` (connection ${this.options.connectionId})` : ""}`,
          })
          .catch((error: { code?: number }) => {
            if (error.code !== 409) throw error;
          });
        return;
      }
      if (!autoSchemaUpgrade) return;
      const [metadata] = (await this.table.getMetadata()) as unknown as [{ schema?: { fields?: { name: string }[] } }];
      const existing = metadata.schema?.fields ?? [];
      const names = new Set(existing.map((f) => f.name));
      const missing = expectedFields()
        .filter((f) => !names.has(f.name))
        .map((f) => ({ ...f, mode: "NULLABLE" }));
      if (missing.length > 0) await this.table.setMetadata({ schema: { fields: [...existing, ...missing] } });
    } catch (error) {
      if (error instanceof BigQuerySinkError) throw error;
      throw new BigQuerySinkError(
        `Cannot prepare BigQuery ` +
          `table ${this.options.datasetId}.${this.options.tableId ?? "agent_events"}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  /**
   * An aborted `signal` ends the wait for BigQuery at once (the
   * request may still land; its insert ids de-duplicate a retry).
   */
  async writeRows(rows: readonly AnalyticsRow[], signal?: AbortSignal): Promise<void> {
    if (rows.length === 0) return;
    signal?.throwIfAborted();
    const payload = rows.map((row) => {
      let insertId = this.insertIds.get(row);
      if (!insertId) this.insertIds.set(row, (insertId = randomUUID()));
      return { insertId, json: row };
    });
    try {
      await abortable(this.table.insert(payload, { raw: true, partialRetries: 0 }), signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      const first = (error as { errors?: { errors?: { message?: string }[] }[] }).errors?.[0]?.errors?.[0]?.message;
      throw new BigQuerySinkError(`BigQuery insert failed: ${first ?? (error as Error).message}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    // The client holds no sockets of its own between requests; nothing to release.
  }
}

function expectedFields(): { name: string; type: string; mode: "REQUIRED" | "NULLABLE" }[] {
  return ANALYTICS_COLUMNS.map((c) => ({
    name: c.name,
    type: BIGQUERY_TYPES[c.type],
    mode: c.required ? "REQUIRED" : "NULLABLE",
  }));
}
