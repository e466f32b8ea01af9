// The trace store keeps a finished trace as JSON text outside the JS heap: what the routes read
// back, the byte budget and eviction must be as they were for span objects.
import { describe, expect, it } from "@jest/globals";
import { TraceStore, type SpanJson } from "../../src/telemetry/index.js";
import { TraceAttr } from "../../src/telemetry/trace-attributes.js";
import { collectAllGarbage } from "../../src/memory/collect-all-garbage.js";

let clock = 1_000_000;

function span(trace: string, id: string, parent: string | null, attributes: SpanJson["attributes"] = {}): SpanJson {
  clock += 1000;
  return {
    name: parent === null ? "invocation" : `child ${id}`,
    span_id: id,
    trace_id: trace,
    start_time: clock,
    end_time: clock + 500,
    parent_span_id: parent,
    attributes: { [TraceAttr.sessionId]: "s1", [TraceAttr.userId]: "u1", ...attributes },
  };
}

/** One trace as the tracer ends it: children first, the root last. */
function recordTrace(store: TraceStore, trace: string, children: SpanJson["attributes"][]): SpanJson[] {
  const root = span(trace, `${trace}-root`, null);
  const spans = children.map((attributes, i) => span(trace, `${trace}-c${i}`, root.span_id, attributes));
  for (const s of spans) store.record(s);
  store.record(root);
  return [...spans, root];
}

const byStart = (spans: SpanJson[]) => [...spans].sort((a, b) => a.start_time - b.start_time);

describe("TraceStore, finished traces", () => {
  it("serves a finished trace as it served it while open, multi-byte text included", () => {
    const store = new TraceStore();
    const root = span("t1", "r", null);
    const child = span("t1", "c", "r", {
      [TraceAttr.eventId]: "e1",
      [TraceAttr.llmResponse]: '{"text":"żółć 🙂 \\"q\\""}',
    });
    store.record(child);
    const whileOpen = store.spansForSession("s1");
    const eventWhileOpen = store.attributesForEvent("e1");
    store.record(root);
    expect(store.spansForSession("s1")).toEqual(byStart([child, root]));
    expect(store.spansForSession("s1").filter((s) => s.span_id === "c")).toEqual(whileOpen);
    expect(store.attributesForEvent("e1")).toEqual(eventWhileOpen);
    expect(store.attributesForEvent("e1")).toEqual({ ...child.attributes, trace_id: "t1", span_id: "c" });
  });

  it("counts a finished trace's exact UTF-8 bytes against the budget", () => {
    const store = new TraceStore();
    const spans = recordTrace(store, "t1", [{ note: "ünïcödé ".repeat(50) }, {}]);
    expect(store.size).toEqual({ traces: 1, spans: 3, bytes: Buffer.byteLength(JSON.stringify(spans), "utf8") });
  });

  it("keeps finished traces' text outside the JS heap", () => {
    const store = new TraceStore({ maxTraces: 10_000, maxBytes: 1024 ** 3 });
    // Collected first both times: buffers other tests in this worker let go are not counted.
    collectAllGarbage();
    const before = process.memoryUsage().arrayBuffers;
    const payload = "p".repeat(20_000);
    for (let i = 0; i < 200; i++) recordTrace(store, `t${i}`, [{ [TraceAttr.llmResponse]: payload }]);
    collectAllGarbage();
    // 200 traces of 20 KB sit in buffers (4 MB), not in strings of the heap.
    expect(process.memoryUsage().arrayBuffers - before).toBeGreaterThanOrEqual(200 * 20_000);
    expect(store.spansForSession("s1")).toHaveLength(400);
  });

  it("serves a span that ends after its root, and forgets it with its trace", () => {
    const store = new TraceStore({ maxTraces: 1 });
    const spans = recordTrace(store, "t1", [{}]);
    const late = span("t1", "late", "t1-root", { [TraceAttr.eventId]: "late-event" });
    store.record(late);
    expect(store.spansForSession("s1")).toEqual(byStart([...spans, late]));
    expect(store.attributesForEvent("late-event")?.span_id).toBe("late");
    expect(store.size.spans).toBe(3);
    recordTrace(store, "t2", [{}]);
    expect(store.attributesForEvent("late-event")).toBeUndefined();
    expect(store.spansForSession("s1").map((s) => s.trace_id)).toEqual(["t2", "t2"]);
    expect(store.size.spans).toBe(2);
  });

  it("evicts finished traces oldest first within the byte budget, and their events with them", () => {
    const maxBytes = 20_000;
    const store = new TraceStore({ maxBytes });
    for (let i = 0; i < 30; i++) {
      recordTrace(store, `t${i}`, [{ [TraceAttr.eventId]: `e${i}`, text: "x".repeat(1_000) }]);
      expect(store.size.bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(store.size.traces).toBeLessThan(30);
    expect(store.attributesForEvent("e0")).toBeUndefined();
    expect(store.attributesForEvent("e29")?.text).toBe("x".repeat(1_000));
    const kept = new Set(store.spansForSession("s1").map((s) => s.trace_id));
    expect(kept.has("t29")).toBe(true);
    expect(kept.has("t0")).toBe(false);
  });

  it("drops the oldest spans of a finished trace that alone is over the budget", () => {
    const store = new TraceStore({ maxBytes: 5_000 });
    const spans = recordTrace(
      store,
      "t1",
      Array.from({ length: 10 }, (_, i) => ({ text: `${i}`.repeat(1_000) })),
    );
    expect(store.size.bytes).toBeLessThanOrEqual(5_000);
    const kept = store.spansForSession("s1");
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(spans.length);
    // The newest spans stay: the root, which ended last, among them.
    expect(kept.map((s) => s.span_id)).toContain("t1-root");
    expect(kept.map((s) => s.span_id)).not.toContain("t1-c0");
  });

  it("keeps traces of two users of one session id apart", () => {
    const store = new TraceStore();
    recordTrace(store, "t1", [{}]);
    const other = span("t2", "o", null, { [TraceAttr.userId]: "u2" });
    store.record(other);
    expect(store.spansForSession("s1", { userId: "u2" })).toEqual([other]);
    expect(store.spansForSession("s1", { userId: "u1" }).map((s) => s.trace_id)).toEqual(["t1", "t1"]);
    expect(store.spansForSession("s1")).toHaveLength(3);
  });

  it("finds a trace by any session its spans name", () => {
    const store = new TraceStore();
    store.record(span("t1", "c", "r", { [TraceAttr.sessionId]: "s2" }));
    store.record(span("t1", "r", null, { [TraceAttr.conversationId]: "s3" }));
    for (const session of ["s1", "s2", "s3"]) expect(store.spansForSession(session)).toHaveLength(2);
    expect(store.spansForSession("s4")).toEqual([]);
  });
});
