/** What happened, one row each (names follow ADK's agent-analytics event types). */
export const ANALYTICS_EVENT_TYPES = [
  "USER_MESSAGE_RECEIVED",
  "INVOCATION_STARTING",
  "INVOCATION_COMPLETED",
  "AGENT_STARTING",
  "AGENT_COMPLETED",
  "LLM_REQUEST",
  "LLM_RESPONSE",
  "LLM_ERROR",
  "TOOL_STARTING",
  "TOOL_COMPLETED",
  "TOOL_ERROR",
  "STATE_DELTA",
] as const;

export type AnalyticsEventType = (typeof ANALYTICS_EVENT_TYPES)[number];

/** One row of the analytics table. Column names are the sinks' (snake_case) names. */
export interface AnalyticsRow {
  /** ISO-8601 time of the event. */
  timestamp: string;
  event_type: AnalyticsEventType;
  app_name: string;
  agent: string | null;
  session_id: string;
  invocation_id: string;
  user_id: string;
  /** The model or tool concerned, when there is one. */
  model: string | null;
  tool_name: string | null;
  /** JSON text of the event's content (formatted, truncated). */
  content: string | null;
  /** JSON text of extra attributes: usage, finish reason, custom tags, session metadata. */
  attributes: string | null;
  latency_ms: number | null;
  status: "OK" | "ERROR";
  error_message: string | null;
  is_truncated: boolean;
}

/** The columns, in order, with portable types; sinks map them to their own type names. */
export const ANALYTICS_COLUMNS: readonly {
  name: keyof AnalyticsRow;
  type: "TIMESTAMP" | "STRING" | "INTEGER" | "BOOLEAN";
  required: boolean;
}[] = [
  { name: "timestamp", type: "TIMESTAMP", required: true },
  { name: "event_type", type: "STRING", required: true },
  { name: "app_name", type: "STRING", required: true },
  { name: "agent", type: "STRING", required: false },
  { name: "session_id", type: "STRING", required: true },
  { name: "invocation_id", type: "STRING", required: true },
  { name: "user_id", type: "STRING", required: true },
  { name: "model", type: "STRING", required: false },
  { name: "tool_name", type: "STRING", required: false },
  { name: "content", type: "STRING", required: false },
  { name: "attributes", type: "STRING", required: false },
  { name: "latency_ms", type: "INTEGER", required: false },
  { name: "status", type: "STRING", required: true },
  { name: "error_message", type: "STRING", required: false },
  { name: "is_truncated", type: "BOOLEAN", required: true },
];

/** Where rows go. A sink may batch; the plugin already does. */
export interface AnalyticsSink {
  /** Creates the table, or adds missing columns when `autoSchemaUpgrade` is on. Called once before the first write. */
  prepare?(options: {
    autoSchemaUpgrade: boolean;
    clusteringFields: readonly string[];
    signal?: AbortSignal;
  }): Promise<void>;
  writeRows(rows: readonly AnalyticsRow[], signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}
