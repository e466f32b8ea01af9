import { ConfigurationError } from "@agentkit/core";
import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace";
import { toSpanJson, type SpanAttributeValue, type SpanJson } from "./span-json.js";
import { LazySpanAttributes } from "./lazy-span-attributes.js";
import { TraceAttr } from "./trace-attributes.js";

export interface TraceStoreOptions {
  /** Most spans kept over all traces (default 10 000). */
  maxSpans?: number;
  /** Most traces kept (default 1 000). */
  maxTraces?: number;
  /** Most bytes of attribute text (written and waiting to be written) kept over all traces (default 64 MiB). */
  maxBytes?: number;
  /**
   * Longest lazily written attribute (a model request) in a session's span list, in characters
   * (default 4 096): the list holds every span of the session, so each request is its head there;
   * the single-event answer (`attributesForEvent`) has it whole (up to `maxAttributeChars`).
   */
  maxListAttributeChars?: number;
}

interface StoredTrace {
  spans: SpanJson[];
  bytes: number;
  sessionIds: Set<string>;
  eventIds: string[];
  /** The `user.id` of its spans: whose run it was. */
  userId?: string;
}

/** The attributes of the span that produced an event, plus its ids (the single-event trace answer). */
export type EventTraceAttributes = Record<string, SpanAttributeValue> & { trace_id: string; span_id: string };

/**
 * A span processor that keeps ended spans in memory, indexed by trace, session and event, and
 * bounded: past `maxTraces` or `maxSpans` the oldest traces are evicted whole. A trace belongs
 * to a session when any of its spans carries the session id (`gcp.vertex.agent.session_id` or
 * `gen_ai.conversation.id`), as ADK's servers associate them.
 */
export class TraceStore implements SpanProcessor {
  readonly maxSpans: number;
  readonly maxTraces: number;
  readonly maxBytes: number;
  readonly maxListAttributeChars: number;
  /** Attributes written on read (model requests), keyed by span id; filled by the tracing plugin. */
  readonly lazy: LazySpanAttributes;
  /** Insertion order = age: the first entry is evicted first. */
  private readonly traces = new Map<string, StoredTrace>();
  private readonly bySession = new Map<string, Set<string>>();
  private readonly byEvent = new Map<string, { traceId: string; span: SpanJson }>();
  private spanCount = 0;
  private byteCount = 0;
  private closed = false;

  constructor(options: TraceStoreOptions = {}, lazy: LazySpanAttributes = new LazySpanAttributes()) {
    this.maxSpans = positive(options.maxSpans, 10_000, "maxSpans");
    this.maxTraces = positive(options.maxTraces, 1_000, "maxTraces");
    this.maxBytes = positive(options.maxBytes, 64 * 1024 * 1024, "maxBytes");
    this.maxListAttributeChars = positive(options.maxListAttributeChars, 4096, "maxListAttributeChars");
    this.lazy = lazy;
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(readable: ReadableSpan): void {
    if (!this.closed) this.record(toSpanJson(readable));
  }

  /** Keeps an ended span (the store's own tracer hands spans here directly); the store owns it from now on. */
  record(span: SpanJson): void {
    if (this.closed) return;
    let trace = this.traces.get(span.trace_id);
    if (!trace) {
      trace = { spans: [], bytes: 0, sessionIds: new Set(), eventIds: [] };
      this.traces.set(span.trace_id, trace);
    }
    trace.spans.push(span);
    this.spanCount += 1;
    const bytes = spanBytes(span) + this.lazy.bytesOf(span.span_id);
    trace.bytes += bytes;
    this.byteCount += bytes;
    const userId = span.attributes[TraceAttr.userId];
    if (typeof userId === "string" && trace.userId === undefined) trace.userId = userId;
    for (const key of [TraceAttr.sessionId, TraceAttr.conversationId]) {
      const sessionId = span.attributes[key];
      if (typeof sessionId === "string" && !trace.sessionIds.has(sessionId)) {
        trace.sessionIds.add(sessionId);
        let set = this.bySession.get(sessionId);
        if (!set) this.bySession.set(sessionId, (set = new Set()));
        set.add(span.trace_id);
      }
    }
    const eventId = span.attributes[TraceAttr.eventId];
    if (typeof eventId === "string" && eventId !== "") {
      this.byEvent.set(eventId, { traceId: span.trace_id, span });
      trace.eventIds.push(eventId);
    }
    this.enforceBounds(span.trace_id);
  }

  /**
   * Every span of every trace of the session (of `owner`'s runs only, when given), by start
   * time; `[]` when none is known. Session ids are unique per app and user only, so two users'
   * sessions may share one: `owner` keeps them apart.
   */
  spansForSession(sessionId: string, owner?: { userId: string }): SpanJson[] {
    const ids = this.bySession.get(sessionId);
    if (!ids) return [];
    const out: SpanJson[] = [];
    for (const id of ids) {
      const trace = this.traces.get(id);
      if (trace && (!owner || trace.userId === owner.userId)) out.push(...trace.spans);
    }
    // Equal starts: the enclosing (longer) span first, so parents precede children.
    return out
      .sort((a, b) => a.start_time - b.start_time || b.end_time - a.end_time)
      .map((span) => this.withLazy(span, this.maxListAttributeChars));
  }

  /** The attributes of the model-call span that produced the event (of `owner`'s runs, when given), or `undefined`. */
  attributesForEvent(eventId: string, owner?: { userId: string }): EventTraceAttributes | undefined {
    const found = this.byEvent.get(eventId);
    if (!found) return undefined;
    if (owner && this.traces.get(found.traceId)?.userId !== owner.userId) return undefined;
    const attributes = this.withLazy(found.span, Number.MAX_SAFE_INTEGER).attributes;
    return { ...attributes, trace_id: found.span.trace_id, span_id: found.span.span_id };
  }

  /** Traces, spans and attribute bytes currently held. */
  get size(): { traces: number; spans: number; bytes: number } {
    return { traces: this.traces.size, spans: this.spanCount, bytes: this.byteCount };
  }

  async forceFlush(): Promise<void> {}

  /** Drops everything; later spans are ignored. */
  async shutdown(): Promise<void> {
    this.closed = true;
    this.traces.clear();
    this.bySession.clear();
    this.byEvent.clear();
    this.lazy.clear();
    this.spanCount = 0;
    this.byteCount = 0;
  }

  /** A copy of the span with its lazy attributes written out. */
  private withLazy(span: SpanJson, maxChars: number): SpanJson {
    return { ...span, attributes: { ...span.attributes, ...this.lazy.resolve(span.span_id, maxChars) } };
  }

  private enforceBounds(currentTraceId: string): void {
    const over = () => this.spanCount > this.maxSpans || this.byteCount > this.maxBytes;
    while (this.traces.size > this.maxTraces || (over() && this.traces.size > 1)) {
      const oldest = this.traces.keys().next().value;
      if (oldest === undefined) break;
      // Never evict the trace being written while another one is older.
      if (oldest === currentTraceId && this.traces.size === 1) break;
      this.evict(oldest === currentTraceId ? [...this.traces.keys()][1]! : oldest);
    }
    // One trace alone over the span budget: drop its oldest spans.
    const trace = this.traces.get(currentTraceId);
    while (trace && over() && trace.spans.length > 0) {
      const dropped = trace.spans.shift()!;
      this.spanCount -= 1;
      const bytes = spanBytes(dropped) + this.lazy.bytesOf(dropped.span_id);
      trace.bytes -= bytes;
      this.byteCount -= bytes;
      this.lazy.delete(dropped.span_id);
      const eventId = dropped.attributes[TraceAttr.eventId];
      if (typeof eventId === "string" && this.byEvent.get(eventId)?.span === dropped) this.byEvent.delete(eventId);
    }
  }

  private evict(traceId: string): void {
    const trace = this.traces.get(traceId);
    if (!trace) return;
    this.traces.delete(traceId);
    this.spanCount -= trace.spans.length;
    this.byteCount -= trace.bytes;
    for (const span of trace.spans) this.lazy.delete(span.span_id);
    for (const sessionId of trace.sessionIds) {
      const set = this.bySession.get(sessionId);
      set?.delete(traceId);
      if (set?.size === 0) this.bySession.delete(sessionId);
    }
    for (const eventId of trace.eventIds)
      if (this.byEvent.get(eventId)?.traceId === traceId) this.byEvent.delete(eventId);
  }
}

/** What a stored span costs: the length of its string attributes (the rest is small and fixed). */
function spanBytes(span: SpanJson): number {
  let bytes = 200;
  for (const value of Object.values(span.attributes)) if (typeof value === "string") bytes += value.length;
  return bytes;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigurationError(`createTraceRecorder: ${name} must be a positive integer, got ${String(value)}.`);
  return value;
}
