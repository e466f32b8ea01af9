import { randomFillSync } from "node:crypto";
import type {
  Attributes,
  Context,
  HrTime,
  Link,
  Span,
  SpanAttributeValue as OtelAttributeValue,
  SpanContext,
  SpanOptions,
  SpanStatus,
  TimeInput,
  Tracer,
} from "@opentelemetry/api";
import type { SpanAttributeValue, SpanJson } from "./span-json.js";

/** Where ended spans go: the trace store's `record`. */
export type SpanJsonSink = (span: SpanJson) => void;

/** The @opentelemetry/api members the tracer needs (loaded by its maker, so start-up stays light). */
export type StoreTracerApi = Pick<typeof import("@opentelemetry/api"), "context" | "trace">;

/** The OpenTelemetry SDK's default attribute count limit per span: past it, new keys are dropped. */
const MAX_ATTRIBUTES = 128;
/** `TraceFlags.SAMPLED`: every span is recorded. */
const SAMPLED = 1;

/**
 * An OpenTelemetry `Tracer` whose spans, once ended, go straight to the trace store as the JSON
 * the trace routes serve. The trace recorder uses it when nothing else takes its spans (no OTLP
 * export): the SDK's tracer provider, its span objects (resource, scope, limits, events, links,
 * timing anchors) and the conversion of each ended span are then work and memory nobody reads.
 * Spans are sampled, nested by the context given (as the SDK's are), and keep attributes as the
 * SDK keeps them for the values the store serves (undefined dropped, at most 128 keys; values
 * that are not a primitive or an array of primitives are dropped, null items of arrays too).
 * Events, links and status are accepted and not kept: the trace routes serve none of them.
 */
export class StoreTracer implements Tracer {
  constructor(
    private readonly sink: SpanJsonSink,
    private readonly api: StoreTracerApi,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, context: Context = this.api.context.active()): Span {
    const parent = options.root ? undefined : this.api.trace.getSpan(context)?.spanContext();
    const valid = parent !== undefined && parent.traceId !== INVALID_TRACE_ID && parent.spanId !== INVALID_SPAN_ID;
    const span = new StoreSpan(
      this.sink,
      name,
      valid ? parent.traceId : randomHex(16),
      valid ? parent.spanId : null,
      options.startTime === undefined ? nowNanos() : toNanos(options.startTime),
    );
    if (options.attributes) span.setAttributes(options.attributes);
    return span;
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(name: string, options: SpanOptions, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    context: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as SpanOptions) : {};
    const parent = rest.length > 2 ? (rest[1] as Context) : this.api.context.active();
    const span = this.startSpan(name, options, parent);
    return this.api.context.with(this.api.trace.setSpan(parent, span), () => fn(span) as ReturnType<F>);
  }
}

const INVALID_TRACE_ID = "0".repeat(32);
const INVALID_SPAN_ID = "0".repeat(16);

class StoreSpan implements Span {
  private readonly spanId = randomHex(8);
  private readonly attributes: Record<string, SpanAttributeValue> = {};
  private attributeCount = 0;
  private ended = false;

  constructor(
    private readonly sink: SpanJsonSink,
    private name: string,
    private readonly traceId: string,
    private readonly parentSpanId: string | null,
    private readonly startTime: number,
  ) {}

  spanContext(): SpanContext {
    return { traceId: this.traceId, spanId: this.spanId, traceFlags: SAMPLED };
  }

  setAttribute(key: string, value: OtelAttributeValue): this {
    if (this.ended || key.length === 0) return this;
    const kept = attributeValue(value);
    if (kept === undefined) return this;
    if (!Object.hasOwn(this.attributes, key)) {
      if (this.attributeCount >= MAX_ATTRIBUTES) return this;
      this.attributeCount++;
    }
    this.attributes[key] = kept;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key] as OtelAttributeValue);
    }
    return this;
  }

  addEvent(_name: string, _attributesOrStartTime?: Attributes | TimeInput, _startTime?: TimeInput): this {
    return this;
  }

  addLink(_link: Link): this {
    return this;
  }

  addLinks(_links: Link[]): this {
    return this;
  }

  setStatus(_status: SpanStatus): this {
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    this.sink({
      name: this.name,
      span_id: this.spanId,
      trace_id: this.traceId,
      start_time: this.startTime,
      end_time: endTime === undefined ? nowNanos() : toNanos(endTime),
      parent_span_id: this.parentSpanId,
      attributes: this.attributes,
    });
  }

  isRecording(): boolean {
    return !this.ended;
  }

  recordException(): void {}
}

/** The value as the store serves it, or undefined to drop it (what the SDK would drop or the UI cannot show). */
function attributeValue(value: unknown): SpanAttributeValue | undefined {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return value;
    case "object":
      if (!Array.isArray(value)) return undefined;
      // The SDK copies arrays (the caller may change its own); null items are holes the UI does not want.
      return value.filter((item: unknown) => item !== null && item !== undefined) as SpanAttributeValue;
    default:
      return undefined;
  }
}

/** Nanoseconds since the epoch, now (as the SDK's clock: the time origin plus the monotonic clock). */
function nowNanos(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1e6);
}

/** A `TimeInput` (epoch milliseconds, a `Date`, or `[seconds, nanoseconds]`) as nanoseconds since the epoch. */
function toNanos(time: TimeInput): number {
  // As the SDK reads a number: below half the time origin it is a `performance.now()` reading.
  if (typeof time === "number") {
    return Math.round((time < performance.timeOrigin / 2 ? performance.timeOrigin + time : time) * 1e6);
  }
  if (time instanceof Date) return time.getTime() * 1e6;
  const [seconds, nanos] = time as HrTime;
  return seconds * 1e9 + nanos;
}

/**
 * Random ids as lowercase hex, taken from a pool filled by the system's generator (one call per
 * 4 KiB instead of one per id). An all-zero id is invalid in OpenTelemetry: drawn again.
 */
const POOL_BYTES = 4096;
let pool: Buffer | undefined;
let poolOffset = POOL_BYTES;

function randomHex(bytes: number): string {
  for (;;) {
    if (!pool || poolOffset + bytes > POOL_BYTES) {
      pool = randomFillSync(pool ?? Buffer.allocUnsafe(POOL_BYTES));
      poolOffset = 0;
    }
    const hex = pool.toString("hex", poolOffset, poolOffset + bytes);
    poolOffset += bytes;
    if (hex !== INVALID_SPAN_ID && hex !== INVALID_TRACE_ID) return hex;
  }
}
