import type { Span } from "./types.js";

export interface TimelineRow {
  span: Span;
  depth: number;
  /** Offset from the first span's start and duration, in milliseconds. */
  startMs: number;
  durationMs: number;
}

const NS_PER_MS = 1e6;

/** Whether an answer of GET .../debug/trace/session/{id} has the shape of section 4.8. */
export function isSpanList(value: unknown): value is Span[] {
  return (
    Array.isArray(value) &&
    value.every(
      (s) =>
        typeof s === "object" &&
        s !== null &&
        typeof s.name === "string" &&
        typeof s.start_time === "number" &&
        typeof s.end_time === "number" &&
        (typeof s.span_id === "string" || typeof s.span_id === "number"),
    )
  );
}

/**
 * Spans as a depth-first tree (children under their parent, siblings by start time), with
 * offsets and durations in milliseconds. A span whose parent is missing is a root.
 */
export function timeline(spans: readonly Span[]): TimelineRow[] {
  if (spans.length === 0) return [];
  const ids = new Set(spans.map((s) => String(s.span_id)));
  const children = new Map<string, Span[]>();
  const roots: Span[] = [];
  for (const s of spans) {
    const parent = s.parent_span_id === null || s.parent_span_id === undefined ? undefined : String(s.parent_span_id);
    if (parent !== undefined && ids.has(parent) && parent !== String(s.span_id)) {
      const list = children.get(parent) ?? [];
      list.push(s);
      children.set(parent, list);
    } else roots.push(s);
  }
  const origin = Math.min(...spans.map((s) => s.start_time));
  const rows: TimelineRow[] = [];
  const byStart = (a: Span, b: Span) => a.start_time - b.start_time;
  const visit = (span: Span, depth: number, seen: Set<string>) => {
    const id = String(span.span_id);
    if (seen.has(id)) return;
    seen.add(id);
    rows.push({
      span,
      depth,
      startMs: (span.start_time - origin) / NS_PER_MS,
      durationMs: Math.max(0, span.end_time - span.start_time) / NS_PER_MS,
    });
    for (const child of (children.get(id) ?? []).sort(byStart)) visit(child, depth + 1, seen);
  };
  const seen = new Set<string>();
  for (const root of roots.sort(byStart)) visit(root, 0, seen);
  return rows;
}

export function formatDuration(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** The model request/response JSON strings of an event's trace entry, parsed when possible. */
export function llmExchange(trace: Record<string, unknown>): { request?: unknown; response?: unknown } {
  const parse = (v: unknown) => {
    if (typeof v !== "string") return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  };
  const request = trace["gcp.vertex.agent.llm_request"];
  const response = trace["gcp.vertex.agent.llm_response"];
  return {
    ...(request !== undefined ? { request: parse(request) } : {}),
    ...(response !== undefined ? { response: parse(response) } : {}),
  };
}
