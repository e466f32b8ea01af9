import { resourceFromAttributes } from "@opentelemetry/resources";
import { TracerProvider } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { SpanJson } from "./span-json.js";
import { TraceStore, type EventTraceAttributes, type TraceStoreOptions } from "./trace-store.js";
import { TracingPlugin } from "./tracing-plugin.js";

export type TraceRecorderOptions = TraceStoreOptions & {
  /** `service.name` of the recorder's resource (default "agentkit"). */
  serviceName?: string;
  /**
   * Longest JSON attribute (LLM request/response, tool args/response) kept whole, in
   * characters (default 100 000); longer ones become `{truncated, length, head}`.
   */
  maxAttributeChars?: number;
};

/** What the debug routes read; the trace recorder is one. */
export interface TraceSource {
  spansForSession(sessionId: string): SpanJson[];
  attributesForEvent(eventId: string): EventTraceAttributes | undefined;
}

export interface TraceRecorder extends TraceSource {
  /** Give it to every runner (`plugins: [recorder.plugin]`); one instance serves them all. */
  readonly plugin: TracingPlugin;
  /** Shuts the recorder's own tracer provider down and drops the stored traces. Idempotent. */
  shutdown(): Promise<void>;
}

/**
 * Records the spans of every run of the runners given its plugin, in memory and bounded (the
 * oldest traces are evicted), for the dev UI's trace view. Uses an OpenTelemetry tracer
 * provider of its own: the global provider, if the application set one, is left alone.
 */
export function createTraceRecorder(options: TraceRecorderOptions = {}): TraceRecorder {
  const store = new TraceStore(options);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName ?? "agentkit" }),
    spanProcessors: [store],
  });
  const plugin = new TracingPlugin(provider.getTracer("@agentkit/server"), { maxAttributeChars: options.maxAttributeChars });
  let shutting: Promise<void> | undefined;
  return {
    plugin,
    spansForSession: (sessionId) => store.spansForSession(sessionId),
    attributesForEvent: (eventId) => store.attributesForEvent(eventId),
    shutdown: () => (shutting ??= provider.shutdown()),
  };
}
