// `@agentkit/server/otel`: OpenTelemetry export (OTLP/HTTP) of traces, metrics and logs. Its own
// entry, imported only when export is on (`agentkit api-server --otel`), so a server without it
// never loads the OpenTelemetry SDK or exporters (docs/deployment.md#telemetry).
export { otelConfigFromEnv, type OtelConfig, type OtelSignal, type OtelSignalTarget } from "./otel/otel-config.js";
export { startOtelExport, type OtelExport, type OtelExportOptions } from "./otel/start-otel-export.js";
export { OtelMetricsPlugin, OtelMetric, OtelAttr, type RunLogSink } from "./otel/metrics-plugin.js";
export { redactCredentials, REDACTED, type Redactor, type RedactionSite } from "./otel/redact-content.js";
