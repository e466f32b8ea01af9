import type { HrTime } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";

/** An OTel attribute value as the dev UI accepts it. */
export type SpanAttributeValue = string | number | boolean | string[] | number[] | boolean[];

/**
 * One span as the trace endpoints serve it (http-api.md 4.8): snake_case keys, lowercase
 * hex ids, integer nanoseconds since the epoch, `parent_span_id` null for a root.
 */
export interface SpanJson {
  name: string;
  span_id: string;
  trace_id: string;
  start_time: number;
  end_time: number;
  parent_span_id: string | null;
  attributes: Record<string, SpanAttributeValue>;
}

/** Nanoseconds since the epoch. Above 2^53 a double keeps ~256 ns precision, enough for a UI. */
export function hrTimeToNanos(time: HrTime): number {
  return time[0] * 1e9 + time[1];
}

/** The wire form of an ended span. */
export function toSpanJson(span: ReadableSpan): SpanJson {
  const context = span.spanContext();
  const attributes: Record<string, SpanAttributeValue> = {};
  for (const [key, value] of Object.entries(span.attributes)) {
    // OTel arrays may hold null/undefined holes; the UI wants plain OTel values.
    if (value === undefined || value === null) continue;
    attributes[key] = (
      Array.isArray(value) ? value.filter((v: unknown) => v !== null && v !== undefined) : value
    ) as SpanAttributeValue;
  }
  return {
    name: span.name,
    span_id: context.spanId,
    trace_id: context.traceId,
    start_time: hrTimeToNanos(span.startTime),
    end_time: hrTimeToNanos(span.endTime),
    parent_span_id: span.parentSpanContext?.spanId ?? null,
    attributes,
  };
}
