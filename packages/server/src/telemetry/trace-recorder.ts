import type { SpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
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
  /** Record prompts, responses and tool payloads in spans (default true: the dev UI shows them). */
  captureContent?: boolean;
  /**
   * More processors fed the same spans, made once the first run starts (an OTLP export:
   * `(plugin) => [otel.spanProcessorFor(plugin)]`); `shutdown()` shuts them down too.
   */
  spanProcessors?: (plugin: TracingPlugin) => SpanProcessor[];
};

/** Restricts a trace lookup to the runs of one user. */
export interface TraceOwner {
  userId: string;
}

/**
 * What the debug routes read; the trace recorder is one. With `owner`, only traces of that
 * user's runs count (the debug routes pass it for non-admin principals when auth is on): an
 * implementation must honour it, or another user's traces leak.
 */
export interface TraceSource {
  spansForSession(sessionId: string, owner?: TraceOwner): SpanJson[];
  attributesForEvent(eventId: string, owner?: TraceOwner): EventTraceAttributes | undefined;
}

export interface TraceRecorder extends TraceSource {
  /** Traces, spans and attribute bytes held (bounded by the store's options). */
  readonly size: { traces: number; spans: number; bytes: number };
  /** Give it to every runner (`plugins: [recorder.plugin]`); one instance serves them all. */
  readonly plugin: TracingPlugin;
  /** Shuts the recorder's own tracer provider down and drops the stored traces. Idempotent. */
  shutdown(): Promise<void>;
}

/**
 * Records the spans of every run of the runners given its plugin, in memory and bounded (the
 * oldest traces are evicted), for the dev UI's trace view. Uses an OpenTelemetry tracer
 * provider of its own: the global provider, if the application set one, is left alone. The
 * OpenTelemetry SDK is imported when the first run starts, not at start-up (it is about a
 * hundred modules).
 */
export function createTraceRecorder(options: TraceRecorderOptions = {}): TraceRecorder {
  const store = new TraceStore(options);
  let provider: Promise<TracerProvider> | undefined;
  let shutting: Promise<void> | undefined;
  const startProvider = async (): Promise<TracerProvider> => {
    // One after the other: both load @opentelemetry/api, and jest's ESM loader fails a module
    // graph that two dynamic imports link at once ("not in cache"); Node itself does not mind.
    const { TracerProvider } = await import("@opentelemetry/sdk-trace");
    const { resourceFromAttributes } = await import("@opentelemetry/resources");
    return new TracerProvider({
      resource: resourceFromAttributes({ "service.name": options.serviceName ?? "agentkit" }),
      spanProcessors: [store, ...(options.spanProcessors?.(plugin) ?? [])],
    });
  };
  const plugin = new TracingPlugin(
    async () => {
      // After shutdown the store ignores spans, so runs still work and record nothing.
      provider ??= startProvider();
      return (await provider).getTracer("@agentkit/server");
    },
    {
      ...(options.maxAttributeChars !== undefined ? { maxAttributeChars: options.maxAttributeChars } : {}),
      ...(options.captureContent !== undefined ? { captureContent: options.captureContent } : {}),
      lazyAttributes: store.lazy,
    },
  );
  return {
    plugin,
    spansForSession: (sessionId, owner) => store.spansForSession(sessionId, owner),
    attributesForEvent: (eventId, owner) => store.attributesForEvent(eventId, owner),
    get size() {
      return store.size;
    },
    shutdown: () => (shutting ??= provider ? provider.then((p) => p.shutdown()) : store.shutdown()),
  };
}
