import type { Attributes, Histogram } from "@opentelemetry/api";
import { createNoopMeter, SeverityNumber } from "@opentelemetry/api";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, type SpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { VERSION, type BasePlugin } from "@agentkit/core";
import type { LogFields, ServerLogger } from "../server-logger.js";
import { LazySpanAttributes } from "../telemetry/lazy-span-attributes.js";
import { TraceAttr } from "../telemetry/trace-attributes.js";
import { TracingPlugin } from "../telemetry/tracing-plugin.js";
import { ExportFailureReporter } from "./export-failure-reporter.js";
import { ExportSpanProcessor } from "./export-span-processor.js";
import { OtelAttr, OtelMetric, OtelMetricsPlugin } from "./metrics-plugin.js";
import type { OtelConfig } from "./otel-config.js";
import { redactCredentials, type Redactor } from "./redact-content.js";

export interface OtelExportOptions {
  /** Endpoints, headers and resource (`otelConfigFromEnv(process.env)`). */
  config: OtelConfig;
  /** Where failed exports are reported (once, then rate-limited); never fed back into the export. */
  logger?: ServerLogger;
  /** Prompts, responses and tool payloads in exported spans; default `config.captureContent` (off). */
  captureContent?: boolean;
  /** Masks what must not leave the process, after the built-in credential masking (spans' strings, log records). */
  redact?: Redactor;
  /** Longest wait for the last exports when shutting down, in ms (default 5000). */
  shutdownTimeoutMs?: number;
  /** Per-request timeout of the OTLP exporters, in ms (default 10000). */
  exportTimeoutMs?: number;
}

/** The export, ready to wire into a server (see docs/deployment.md#telemetry). */
export interface OtelExport {
  /**
   * Plugins for every runner: the tracing plugin (unless `tracing: false`, when the caller's
   * trace recorder feeds `spanProcessorFor` instead) and the metrics plugin.
   */
  plugins(options?: { tracing?: boolean }): BasePlugin[];
  /**
   * The OTLP span processor for a tracer provider of the caller's fed by `plugin` (the dev UI's
   * trace recorder: `createTraceRecorder({ spanProcessors: (p) => [otel.spanProcessorFor(p)] })`),
   * so the exported spans are the ones the dev UI shows. Undefined when traces are off.
   */
  spanProcessorFor(plugin: TracingPlugin): SpanProcessor | undefined;
  /** `base` plus an OTLP log record for each message at `level` or above (default info). */
  logger(base: ServerLogger, level?: LogLevel): ServerLogger;
  /** Records how long a run waited for its session's turn (`createAgentServer({ onRunQueueWait })`). */
  recordRunQueueWait(ms: number, appName: string): void;
  /** Exports what is pending and stops, within `shutdownTimeoutMs`. Idempotent; never throws. */
  shutdown(): Promise<void>;
}

type LogLevel = "error" | "warn" | "info" | "debug";
const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

const SEVERITY = {
  error: SeverityNumber.ERROR,
  warn: SeverityNumber.WARN,
  info: SeverityNumber.INFO,
  debug: SeverityNumber.DEBUG,
} as const;

/**
 * Starts OTLP/HTTP (JSON) export of traces (the tracing plugin's spans, GenAI attributes),
 * metrics (GenAI client metrics and agentkit's run metrics) and logs. Providers are the
 * export's own, never registered globally. Failed exports never fail a run: they are reported
 * to `logger` once per outage (rate-limited) and the data is dropped.
 */
export function startOtelExport(options: OtelExportOptions): OtelExport {
  const { config } = options;
  const base = options.logger;
  const reporter = base ? new ExportFailureReporter(base) : undefined;
  const watch = <T extends object>(signal: "traces" | "metrics" | "logs", exporter: T): T =>
    reporter ? reporter.watch(signal, exporter) : exporter;
  const captureContent = options.captureContent ?? config.captureContent;
  const redact = (text: string, attribute?: string): string => {
    const masked = redactCredentials(text);
    return options.redact ? options.redact(masked, { signal: "logs", ...(attribute ? { attribute } : {}) }) : masked;
  };
  const resource = resourceFromAttributes({
    "telemetry.distro.name": "agentkit",
    "telemetry.distro.version": VERSION,
    ...config.resourceAttributes,
    "service.name": config.serviceName,
  });
  const timeoutMillis = options.exportTimeoutMs ?? 10_000;
  const shutdowns: (() => Promise<void>)[] = [];

  // Traces: one batch processor per export, shared by every tracer provider that feeds it.
  const batch = config.traces
    ? new BatchSpanProcessor({
        exporter: watch(
          "traces",
          new OTLPTraceExporter({ url: config.traces.url, headers: config.traces.headers, timeoutMillis }),
        ),
      })
    : undefined;
  const exportProcessor = (lazy: LazySpanAttributes, ownsLazy: boolean) =>
    batch
      ? new ExportSpanProcessor({
          next: batch,
          captureContent,
          lazy,
          ownsLazy,
          ...(options.redact ? { redact: options.redact } : {}),
        })
      : undefined;
  let ownTracing: TracingPlugin | undefined;
  const tracingPlugin = (): TracingPlugin | undefined => {
    if (!batch) return undefined;
    if (ownTracing) return ownTracing;
    const lazy = new LazySpanAttributes();
    const processor = exportProcessor(lazy, true)!;
    const provider = new TracerProvider({ resource, spanProcessors: [processor] });
    shutdowns.push(() => provider.shutdown());
    ownTracing = new TracingPlugin(provider.getTracer("@agentkit/server", VERSION), {
      name: "agentkit_otel_tracing",
      captureContent,
      lazyAttributes: lazy,
    });
    return ownTracing;
  };
  if (batch) shutdowns.push(() => batch.shutdown());

  // Logs first: the metrics plugin writes a record per finished run.
  let otelLogger: ReturnType<LoggerProvider["getLogger"]> | undefined;
  if (config.logs) {
    const provider = new LoggerProvider({
      resource,
      processors: [
        new BatchLogRecordProcessor({
          exporter: watch(
            "logs",
            new OTLPLogExporter({ url: config.logs.url, headers: config.logs.headers, timeoutMillis }),
          ),
        }),
      ],
    });
    otelLogger = provider.getLogger("@agentkit/server", VERSION);
    shutdowns.push(() => provider.shutdown());
  }
  const emit = (level: keyof typeof SEVERITY, message: string, attributes: Attributes = {}) => {
    if (!otelLogger) return;
    const clean: Attributes = {};
    for (const [key, value] of Object.entries(attributes))
      clean[key] = typeof value === "string" ? redact(value, key) : value;
    otelLogger.emit({
      severityNumber: SEVERITY[level],
      severityText: level.toUpperCase(),
      body: redact(message),
      attributes: clean,
    });
  };

  let metricsPlugin: OtelMetricsPlugin | undefined;
  let queueWait: Histogram | undefined;
  if (config.metrics) {
    const interval = config.metricExportIntervalMs;
    const provider = new MeterProvider({
      resource,
      readers: [
        new PeriodicExportingMetricReader({
          exporter: watch(
            "metrics",
            new OTLPMetricExporter({ url: config.metrics.url, headers: config.metrics.headers, timeoutMillis }),
          ),
          exportIntervalMillis: interval,
          exportTimeoutMillis: Math.min(interval, 30_000),
        }),
      ],
    });
    const meter = provider.getMeter("@agentkit/server", VERSION);
    metricsPlugin = new OtelMetricsPlugin(meter, (message, attributes) => emit("info", message, attributes));
    queueWait = meter.createHistogram(OtelMetric.runQueueWait, {
      description: "How long runs waited for their session's turn (runs on one session take turns).",
      unit: "s",
    });
    shutdowns.push(() => provider.shutdown());
  } else if (otelLogger) {
    // Logs without metrics: the plugin still writes its record per run.
    metricsPlugin = new OtelMetricsPlugin(createNoopMeter(), (message, attributes) =>
      emit("info", message, attributes),
    );
  }

  let shutting: Promise<void> | undefined;
  return {
    plugins: ({ tracing = true } = {}) => {
      const tracer = tracing ? tracingPlugin() : undefined;
      return [...(tracer ? [tracer] : []), ...(metricsPlugin ? [metricsPlugin] : [])];
    },
    spanProcessorFor: (plugin) => exportProcessor(plugin.lazyAttributes, false),
    logger: (target, level = "info") =>
      withOtelLogs(target, (at, message, attributes) => {
        if (RANK[at] <= RANK[level]) emit(at, message, attributes);
      }),
    recordRunQueueWait: (ms, appName) => queueWait?.record(ms / 1000, { [OtelAttr.appName]: appName }),
    shutdown: () =>
      (shutting ??= bounded(
        // All at once: ended spans are already in the batch processor, which each export flushes.
        Promise.allSettled(shutdowns.map((stop) => stop())).then(() => undefined),
        options.shutdownTimeoutMs ?? 5000,
        () => base?.warn("OpenTelemetry: the last exports did not finish in time and were dropped"),
      )),
  };
}

/** `base`, with every message it writes also sent as an OTLP log record (ids as attributes). */
function withOtelLogs(
  base: ServerLogger,
  emit: (level: keyof typeof SEVERITY, message: string, attributes?: Attributes) => void,
): ServerLogger {
  const attributes = (fields?: LogFields, error?: unknown): Attributes => ({
    ...(fields?.appName ? { [OtelAttr.appName]: fields.appName } : {}),
    ...(fields?.sessionId ? { [TraceAttr.sessionId]: fields.sessionId } : {}),
    ...(fields?.invocationId ? { [TraceAttr.invocationId]: fields.invocationId } : {}),
    ...(fields?.userId ? { [TraceAttr.userId]: fields.userId } : {}),
    ...(error !== undefined ? { "exception.message": error instanceof Error ? error.message : String(error) } : {}),
  });
  return {
    error: (message, error, fields) => {
      base.error(message, error, fields);
      emit("error", message, attributes(fields, error));
    },
    warn: (message, error, fields) => {
      base.warn(message, error, fields);
      emit("warn", message, attributes(fields, error));
    },
    info: (message, fields) => {
      base.info(message, fields);
      emit("info", message, attributes(fields));
    },
    debug: (message, fields) => {
      base.debug?.(message, fields);
      emit("debug", message, attributes(fields));
    },
  };
}

/** Waits for `work` at most `ms`; past it calls `onTimeout` and resolves. The timer never keeps the process up. */
function bounded(work: Promise<void>, ms: number, onTimeout: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      onTimeout();
      resolve();
    }, ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
