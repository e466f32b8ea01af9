import type { Tracer } from "@opentelemetry/api";
import type { SpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { SpanJson } from "./span-json.js";
import { TraceStore, type EventTraceAttributes, type TraceStoreOptions } from "./trace-store.js";
import { StoreTracer } from "./store-tracer.js";
import { TracingPlugin } from "./tracing-plugin.js";

/** The recorder's tracer and how to shut down what made it. */
interface StartedTracer {
  tracer: Tracer;
  shutdown(): Promise<void>;
}

export type TraceRecorderOptions = TraceStoreOptions & {
  /** `service.name` of the resource of exported spans (default "agentkit"); with no `spanProcessors` nothing uses it. */
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
 * oldest traces are evicted), for the dev UI's trace view. The global OpenTelemetry provider, if
 * the application set one, is left alone. With `spanProcessors` (an export), spans are made by an
 * OpenTelemetry SDK tracer provider of the recorder's own, which feeds the store and them; the
 * SDK is imported when the first run starts, not at start-up (it is about a hundred modules).
 * Without, a `StoreTracer` hands each ended span to the store directly and the SDK never loads.
 */
export function createTraceRecorder(options: TraceRecorderOptions = {}): TraceRecorder {
  const store = new TraceStore(options);
  let provider: Promise<StartedTracer> | undefined;
  let shutting: Promise<void> | undefined;
  const startProvider = async (): Promise<StartedTracer> => {
    const more = options.spanProcessors?.(plugin) ?? [];
    if (more.length === 0) {
      // Nothing but the store reads the spans: they go to it directly, without the SDK.
      const api = await import("@opentelemetry/api");
      return { tracer: new StoreTracer((span) => store.record(span), api), shutdown: () => store.shutdown() };
    }
    // One after the other: both load @opentelemetry/api, and jest's ESM loader fails a module
    // graph that two dynamic imports link at once ("not in cache"); Node itself does not mind.
    const { TracerProvider } = await import("@opentelemetry/sdk-trace");
    const { resourceFromAttributes } = await import("@opentelemetry/resources");
    const sdk: TracerProvider = new TracerProvider({
      resource: resourceFromAttributes({ "service.name": options.serviceName ?? "agentkit" }),
      spanProcessors: [store, ...more],
    });
    return { tracer: sdk.getTracer("@agentkit/server"), shutdown: () => sdk.shutdown() };
  };
  const plugin = new TracingPlugin(
    async () => {
      // After shutdown the store ignores spans, so runs still work and record nothing.
      provider ??= startProvider();
      return (await provider).tracer;
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
    shutdown: () => (shutting ??= provider ? provider.then((started) => started.shutdown()) : store.shutdown()),
  };
}
