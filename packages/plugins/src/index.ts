export { LoggingPlugin, type LoggingPluginOptions, type LogRecord, type LogPoint } from "./logging/logging-plugin.js";
export {
  GlobalInstructionPlugin,
  type GlobalInstructionPluginOptions,
  type GlobalInstruction,
} from "./global-instruction/global-instruction-plugin.js";
export {
  ContextFilterPlugin,
  filterContents,
  type ContextFilterPluginOptions,
  type ContentsFilter,
} from "./context-filter/context-filter-plugin.js";
export { RecordingsPlugin, type RecordingsPluginOptions } from "./replay/recordings-plugin.js";
export { ReplayPlugin, type ReplayPluginOptions } from "./replay/replay-plugin.js";
export {
  recordingsToYaml,
  recordingsFromYaml,
  readRecordingsFile,
  writeRecordingsFile,
  type Recordings,
  type Recording,
  type LlmRecording,
  type ToolRecording,
  type RecordedLlmRequest,
} from "./replay/recordings.js";
export { ReplayConfigError, ReplayVerificationError } from "./replay/replay-errors.js";
export {
  AnalyticsPlugin,
  type AnalyticsPluginOptions,
  type AnalyticsRetryConfig,
  type ContentFormatter,
} from "./analytics/analytics-plugin.js";
export { AnalyticsCloseTimeoutError, AnalyticsQueueFullError } from "./analytics/analytics-errors.js";
export { JsonlAnalyticsSink, type JsonlAnalyticsSinkOptions } from "./analytics/jsonl-analytics-sink.js";
export {
  ANALYTICS_COLUMNS,
  ANALYTICS_EVENT_TYPES,
  type AnalyticsRow,
  type AnalyticsSink,
  type AnalyticsEventType,
} from "./analytics/analytics-row.js";
export {
  sessionSnapshot,
  sessionSnapshotToYaml,
  readSessionSnapshotFile,
  writeSessionSnapshotFile,
  compareSessionSnapshots,
  SESSION_IGNORED_KEYS,
  SESSION_IGNORED_METADATA_KEYS,
  type SessionSnapshot,
} from "./replay/session-snapshot.js";
export { toSnakeCase, toCamelCase } from "./replay/key-case.js";
export { diffValues } from "./replay/request-diff.js";
export {
  findConformanceCases,
  readConformanceCase,
  type ConformanceCase,
  type ConformanceMessage,
} from "./replay/conformance-case.js";
