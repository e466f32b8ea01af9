import type { AnalyticsEventType, AnalyticsSink } from "./analytics-row.js";

/** Turns what would be logged as `content` into something else (redaction, reshaping). */
export type ContentFormatter = (content: unknown, eventType: AnalyticsEventType) => unknown;

export interface AnalyticsRetryConfig {
  /** Delay before the first retry (ms or "500ms"; default 500 ms); doubles each attempt. */
  initialDelay?: number | string;
  /** Attempts per batch including the first (default 3). */
  maxAttempts?: number;
  /** Cap on one delay (default 10 s). */
  maxDelay?: number | string;
}

/** The warehouse-logging configuration of the spec (sink-specific fields live on the sink). */
export interface AnalyticsPluginOptions {
  sink: AnalyticsSink;
  /** Off: the plugin does nothing (default true). */
  enabled?: boolean;
  /** Rows per write (default 50). */
  batchSize?: number;
  /** Longest a row waits before its batch is written (ms or "5s"; default 1 s). */
  batchFlushInterval?: number | string;
  /** Passed to the sink when it creates the table (default event_type, agent, user_id). */
  clusteringFields?: string[];
  /** Added to every row's attributes as `custom_tags`. */
  customTags?: Record<string, string>;
  /** Only these event types are logged. */
  eventAllowlist?: AnalyticsEventType[];
  /** These event types are not logged. */
  eventDenylist?: AnalyticsEventType[];
  /** `content` is cut to this many characters and the row marked `is_truncated` (default 500; 0 = no limit). */
  maxContentLength?: number;
  /** Log inline images/audio/files as base64 (default false: mime type and size only). */
  logMultiModalContent?: boolean;
  /** Add the session's state and update time to run rows' attributes (default true). */
  logSessionMetadata?: boolean;
  /** Let the sink add missing columns to an existing table (default true). */
  autoSchemaUpgrade?: boolean;
  contentFormatter?: ContentFormatter;
  retry?: AnalyticsRetryConfig;
  /**
   * Rows held while the sink is slow or down, queued or in batches waiting to be written; beyond
   * it new rows are dropped and counted in `droppedRows` (default 10,000).
   */
  maxQueueSize?: number;
  /**
   * Told about rows given up: a batch after its retries, a row whose contentFormatter
   * threw, rows dropped while `maxQueueSize` rows were held (`AnalyticsQueueFullError`, once when
   * dropping starts and once for the rest when it ends), rows left at a close timeout (default:
   * one line on stderr).
   */
  onError?: (error: unknown, info: { droppedRows: number }) => void;
  /**
   * Longest `close()` waits for the sink (flush, then the sink's close) before
   * aborting its signal and giving up the rest (default 5 s; ms or `"10s"`).
   */
  closeTimeout?: number | string;
  /** Plugin name (default `analytics`). */
  name?: string;
}
