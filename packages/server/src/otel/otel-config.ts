import { ConfigurationError } from "@agentkit/core";

export type OtelSignal = "traces" | "metrics" | "logs";

/** Where and how one signal is exported; absent when its `OTEL_<SIGNAL>_EXPORTER` is `none`. */
export interface OtelSignalTarget {
  /** The full OTLP/HTTP URL (e.g. `http://collector:4318/v1/traces`). */
  url: string;
  /** Sent with every export request (an API key, a tenant): never logged. */
  headers: Record<string, string>;
}

/** What the OpenTelemetry export needs, read from the standard `OTEL_*` variables by `otelConfigFromEnv`. */
export interface OtelConfig {
  /** `service.name` of every signal's resource (default "agentkit"). */
  serviceName: string;
  /** Further resource attributes (`OTEL_RESOURCE_ATTRIBUTES`). */
  resourceAttributes: Record<string, string>;
  traces?: OtelSignalTarget;
  metrics?: OtelSignalTarget;
  logs?: OtelSignalTarget;
  /** How often metrics are pushed, in ms (`OTEL_METRIC_EXPORT_INTERVAL`, default 60000); also pushed on shutdown. */
  metricExportIntervalMs: number;
  /** Prompts, responses and tool payloads in exported spans (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`, default off). */
  captureContent: boolean;
  /** Problems worth a warning at start-up (an unsupported protocol that was replaced), never secrets. */
  notes: string[];
}

const DEFAULT_ENDPOINT = "http://localhost:4318";
const PATHS: Record<OtelSignal, string> = { traces: "v1/traces", metrics: "v1/metrics", logs: "v1/logs" };

/**
 * Reads the OpenTelemetry SDK's standard environment variables (the OTLP exporter
 * specification): `OTEL_EXPORTER_OTLP_ENDPOINT` (the signal paths `/v1/traces`, … appended) or
 * the per-signal `OTEL_EXPORTER_OTLP_{TRACES,METRICS,LOGS}_ENDPOINT` (used as they are),
 * `OTEL_EXPORTER_OTLP[_<SIGNAL>]_HEADERS` (`k=v,k2=v2`, URL-encoded), `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_{TRACES,METRICS,LOGS}_EXPORTER=none`,
 * `OTEL_EXPORTER_OTLP[_<SIGNAL>]_PROTOCOL` and `OTEL_METRIC_EXPORT_INTERVAL`. A bad value throws
 * a `ConfigurationError` naming the variable (never its value: headers hold credentials).
 */
export function otelConfigFromEnv(env: Record<string, string | undefined>): OtelConfig {
  const notes: string[] = [];
  const get = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const baseHeaders = parseKeyValues(get("OTEL_EXPORTER_OTLP_HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS");
  const target = (signal: OtelSignal): OtelSignalTarget | undefined => {
    const upper = signal.toUpperCase();
    const exporter = get(`OTEL_${upper}_EXPORTER`);
    if (exporter === "none") return undefined;
    if (exporter !== undefined && exporter !== "otlp")
      throw new ConfigurationError(`OTEL_${upper}_EXPORTER must be otlp or none, got "${exporter}".`);
    const protocol = get(`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`) ?? get("OTEL_EXPORTER_OTLP_PROTOCOL");
    if (protocol === "grpc")
      throw new ConfigurationError(
        "OTLP over gRPC is not supported: agentkit exports OTLP/HTTP (http/json); point the endpoint at the receiver's HTTP port (4318).",
      );
    if (protocol === "http/protobuf")
      notes.push(
        `${signal}: exporting OTLP/HTTP with JSON encoding (http/json), which every OTLP/HTTP receiver accepts`,
      );
    else if (protocol !== undefined && protocol !== "http/json")
      throw new ConfigurationError(
        `OTEL_EXPORTER_OTLP_PROTOCOL must be http/json or http/protobuf, got "${protocol}".`,
      );
    const specific = get(`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`);
    const base = get("OTEL_EXPORTER_OTLP_ENDPOINT") ?? DEFAULT_ENDPOINT;
    const url = specific ?? `${base.replace(/\/+$/, "")}/${PATHS[signal]}`;
    checkUrl(url, specific ? `OTEL_EXPORTER_OTLP_${upper}_ENDPOINT` : "OTEL_EXPORTER_OTLP_ENDPOINT");
    const headers = {
      ...baseHeaders,
      ...parseKeyValues(get(`OTEL_EXPORTER_OTLP_${upper}_HEADERS`), `OTEL_EXPORTER_OTLP_${upper}_HEADERS`),
    };
    return { url, headers };
  };
  const resourceAttributes = parseKeyValues(get("OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES");
  const interval = get("OTEL_METRIC_EXPORT_INTERVAL");
  if (interval !== undefined && (!/^\d+$/.test(interval) || Number(interval) < 1))
    throw new ConfigurationError(`OTEL_METRIC_EXPORT_INTERVAL must be a positive integer (ms), got "${interval}".`);
  const traces = target("traces");
  const metrics = target("metrics");
  const logs = target("logs");
  return {
    serviceName: get("OTEL_SERVICE_NAME") ?? resourceAttributes["service.name"] ?? "agentkit",
    resourceAttributes,
    ...(traces ? { traces } : {}),
    ...(metrics ? { metrics } : {}),
    ...(logs ? { logs } : {}),
    metricExportIntervalMs: interval === undefined ? 60_000 : Number(interval),
    captureContent: isTrue(get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")),
    notes,
  };
}

/** `k=v,k2=v2` with URL-encoded keys and values (the W3C baggage-like list the OTel variables use). */
function parseKeyValues(text: string | undefined, variable: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  for (const item of text.split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf("=");
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(item.slice(0, at).trim());
      value = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new ConfigurationError(`${variable}: an entry is not valid URL encoding.`);
    }
    if (at <= 0 || key === "") throw new ConfigurationError(`${variable}: every entry must be key=value.`);
    out[key] = value;
  }
  return out;
}

function checkUrl(url: string, variable: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigurationError(`${variable} must be an http(s) URL.`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new ConfigurationError(`${variable} must be an http(s) URL, got a ${parsed.protocol} URL.`);
}

function isTrue(value: string | undefined): boolean {
  return value === "1" || value?.toLowerCase() === "true";
}
