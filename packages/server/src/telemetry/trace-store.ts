import { ConfigurationError } from "@agentkit/core";
import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace";
import { toSpanJson, type SpanAttributeValue, type SpanJson } from "./span-json.js";
import { LazySpanAttributes } from "./lazy-span-attributes.js";
import { TraceAttr } from "./trace-attributes.js";
import { type ArenaSlice, ByteArena } from "./byte-arena.js";

export interface TraceStoreOptions {
  /** Most spans kept over all traces (default 10 000). */
  maxSpans?: number;
  /** Most traces kept (default 1 000). */
  maxTraces?: number;
  /**
   * Most bytes kept over all traces (default 64 MiB): a finished trace's JSON text, an estimate of
   * an open trace's spans, and of the model requests waiting to be written.
   */
  maxBytes?: number;
  /**
   * Longest lazily written attribute (a model request) in a session's span list, in characters
   * (default 4 096): the list holds every span of the session, so each request is its head there;
   * the single-event answer (`attributesForEvent`) has it whole (up to `maxAttributeChars`).
   */
  maxListAttributeChars?: number;
}

/**
 * One trace. Its spans are objects while it is open; once its root span has ended (the trace is
 * finished) they are sealed: written as one JSON text into the store's arena, outside V8's heap,
 * and parsed again when a route reads them. A span that ends after its root (rare) joins `open`.
 */
class StoredTrace {
  /** Spans recorded and not sealed yet. */
  open: SpanJson[] = [];
  /** The sealed spans' JSON (an array of them), once the root ended. */
  sealed: ArenaSlice | undefined = undefined;
  spanCount = 0;
  /** Bytes it counts against `maxBytes`: sealed text, an estimate of open spans, lazy attributes. */
  bytes = 0;
  /** The session its spans name (`gcp.vertex.agent.session_id` or `gen_ai.conversation.id`). */
  sessionId: string | undefined = undefined;
  /** Further sessions its spans name (rare: a run that touches another session). */
  moreSessionIds: string[] | undefined = undefined;
  /** The `user.id` of its spans: whose run it was. */
  userId: string | undefined = undefined;
  /**
   * Of the sealed spans (read from `open` while a span is open): the events they produced
   * (indexed in `byEvent`) and the spans with lazy attributes, for eviction. Arrays of exactly
   * their length, or undefined when empty.
   */
  sealedEventIds: string[] | undefined = undefined;
  sealedLazySpanIds: string[] | undefined = undefined;

  belongsTo(sessionId: string): boolean {
    return this.sessionId === sessionId || (this.moreSessionIds?.includes(sessionId) ?? false);
  }
}

/** The attributes of the span that produced an event, plus its ids (the single-event trace answer). */
export type EventTraceAttributes = Record<string, SpanAttributeValue> & { trace_id: string; span_id: string };

/**
 * A span processor that keeps ended spans in memory, indexed by trace and event, and
 * bounded: past `maxTraces`, `maxSpans` or `maxBytes` the oldest traces are evicted whole. A
 * trace belongs to a session when any of its spans carries the session id
 * (`gcp.vertex.agent.session_id` or `gen_ai.conversation.id`), as ADK's servers associate them.
 * A finished trace is kept as JSON text outside the JS heap (`ByteArena`): a traced server's
 * heap then holds a few small records per trace, and its budget counts the text's exact bytes.
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
  /** Event id → the trace whose span produced it. */
  private readonly byEvent = new Map<string, string>();
  private readonly arena = new ByteArena();
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
      trace = new StoredTrace();
      this.traces.set(span.trace_id, trace);
    }
    trace.open.push(span);
    trace.spanCount += 1;
    this.spanCount += 1;
    this.addBytes(trace, spanBytes(span) + this.lazy.bytesOf(span.span_id));
    const userId = span.attributes[TraceAttr.userId];
    if (typeof userId === "string" && trace.userId === undefined) trace.userId = userId;
    for (const key of [TraceAttr.sessionId, TraceAttr.conversationId]) {
      const sessionId = span.attributes[key];
      if (typeof sessionId !== "string" || trace.belongsTo(sessionId)) continue;
      if (trace.sessionId === undefined) trace.sessionId = sessionId;
      else (trace.moreSessionIds ??= []).push(sessionId);
    }
    const eventId = eventIdOf(span);
    if (eventId !== undefined) this.byEvent.set(eventId, span.trace_id);
    this.enforceBounds(span.trace_id);
    // The root ends last: the trace is finished, its spans go out of the heap. The text's exact
    // size replaces the estimate, which may put the store over its byte budget again.
    if (span.parent_span_id === null && this.traces.get(span.trace_id) === trace) {
      this.seal(trace);
      this.enforceBounds(span.trace_id);
    }
  }

  /**
   * Every span of every trace of the session (of `owner`'s runs only, when given), by start
   * time; `[]` when none is known. Session ids are unique per app and user only, so two users'
   * sessions may share one: `owner` keeps them apart.
   */
  spansForSession(sessionId: string, owner?: { userId: string }): SpanJson[] {
    const out: SpanJson[] = [];
    // At most `maxTraces` records, each compared by two fields: no per-session index to keep.
    for (const trace of this.traces.values()) {
      if (trace.belongsTo(sessionId) && (!owner || trace.userId === owner.userId)) out.push(...this.spansOf(trace));
    }
    // Equal starts: the enclosing (longer) span first, so parents precede children.
    return out
      .sort((a, b) => a.start_time - b.start_time || b.end_time - a.end_time)
      .map((span) => this.withLazy(span, this.maxListAttributeChars));
  }

  /** The attributes of the model-call span that produced the event (of `owner`'s runs, when given), or `undefined`. */
  attributesForEvent(eventId: string, owner?: { userId: string }): EventTraceAttributes | undefined {
    const traceId = this.byEvent.get(eventId);
    const trace = traceId === undefined ? undefined : this.traces.get(traceId);
    if (!trace || (owner && trace.userId !== owner.userId)) return undefined;
    const span = this.spansOf(trace).find((s) => s.attributes[TraceAttr.eventId] === eventId);
    if (!span) return undefined;
    const attributes = this.withLazy(span, Number.MAX_SAFE_INTEGER).attributes;
    return { ...attributes, trace_id: span.trace_id, span_id: span.span_id };
  }

  /** Traces, spans and bytes currently held. */
  get size(): { traces: number; spans: number; bytes: number } {
    return { traces: this.traces.size, spans: this.spanCount, bytes: this.byteCount };
  }

  async forceFlush(): Promise<void> {}

  /** Drops everything; later spans are ignored. */
  async shutdown(): Promise<void> {
    this.closed = true;
    this.traces.clear();
    this.byEvent.clear();
    this.arena.clear();
    this.lazy.clear();
    this.spanCount = 0;
    this.byteCount = 0;
  }

  /** A trace's spans: the sealed ones parsed again (fresh objects), then any open ones. */
  private spansOf(trace: StoredTrace): SpanJson[] {
    if (!trace.sealed) return trace.open;
    const sealed = JSON.parse(this.arena.read(trace.sealed)) as SpanJson[];
    return trace.open.length === 0 ? sealed : [...sealed, ...trace.open];
  }

  /**
   * Writes the trace's open spans into the arena as one JSON array (with the spans sealed
   * before, when a span ended after its root) and counts the text's bytes instead of the
   * estimate.
   */
  private seal(trace: StoredTrace): void {
    const spans = this.spansOf(trace);
    let estimate = 0;
    for (const span of trace.open) estimate += spanBytes(span);
    const before = trace.sealed;
    trace.sealed = this.arena.write(JSON.stringify(spans));
    trace.sealedEventIds = exactIds(spans, eventIdOf);
    trace.sealedLazySpanIds = exactIds(spans, (span) => (this.lazy.has(span.span_id) ? span.span_id : undefined));
    if (before) this.arena.release(before);
    trace.open = [];
    this.addBytes(trace, trace.sealed.length - (before?.length ?? 0) - estimate);
  }

  /** Back to span objects (to drop some of them), counted by estimate again. */
  private unseal(trace: StoredTrace, sealed: ArenaSlice): void {
    trace.open = this.spansOf(trace);
    trace.sealed = undefined;
    trace.sealedEventIds = undefined;
    trace.sealedLazySpanIds = undefined;
    this.arena.release(sealed);
    let estimate = 0;
    let lazyBytes = 0;
    for (const span of trace.open) {
      estimate += spanBytes(span);
      lazyBytes += this.lazy.bytesOf(span.span_id);
    }
    this.addBytes(trace, estimate + lazyBytes - trace.bytes);
  }

  private addBytes(trace: StoredTrace, bytes: number): void {
    trace.bytes += bytes;
    this.byteCount += bytes;
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
    // One trace alone over the budget: drop its oldest spans (taken out of the arena first, rare).
    const trace = this.traces.get(currentTraceId);
    if (trace?.sealed && over()) this.unseal(trace, trace.sealed);
    while (trace && over() && trace.open.length > 0) {
      const dropped = trace.open.shift()!;
      trace.spanCount -= 1;
      this.spanCount -= 1;
      const lazyBytes = this.lazy.bytesOf(dropped.span_id);
      this.addBytes(trace, -(spanBytes(dropped) + lazyBytes));
      this.lazy.delete(dropped.span_id);
      this.forgetEvent(eventIdOf(dropped), currentTraceId);
    }
  }

  private evict(traceId: string): void {
    const trace = this.traces.get(traceId);
    if (!trace) return;
    this.traces.delete(traceId);
    this.spanCount -= trace.spanCount;
    this.byteCount -= trace.bytes;
    if (trace.sealed) this.arena.release(trace.sealed);
    for (const span of trace.open) {
      this.lazy.delete(span.span_id);
      this.forgetEvent(eventIdOf(span), traceId);
    }
    for (const spanId of trace.sealedLazySpanIds ?? []) this.lazy.delete(spanId);
    for (const eventId of trace.sealedEventIds ?? []) this.forgetEvent(eventId, traceId);
  }

  /** Drops the event's index entry if it still names this trace (a later trace may have taken the id). */
  private forgetEvent(eventId: string | undefined, traceId: string): void {
    if (eventId !== undefined && this.byEvent.get(eventId) === traceId) this.byEvent.delete(eventId);
  }
}

/** The id of the event a span produced (a model call's), if any. */
function eventIdOf(span: SpanJson): string | undefined {
  const id = span.attributes[TraceAttr.eventId];
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** The ids `pick` gives for `spans`, in an array of exactly their number (kept per trace), or undefined for none. */
function exactIds(spans: readonly SpanJson[], pick: (span: SpanJson) => string | undefined): string[] | undefined {
  let count = 0;
  for (const span of spans) if (pick(span) !== undefined) count++;
  if (count === 0) return undefined;
  const ids = new Array<string>(count);
  let i = 0;
  for (const span of spans) {
    const id = pick(span);
    if (id !== undefined) ids[i++] = id;
  }
  return ids;
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
