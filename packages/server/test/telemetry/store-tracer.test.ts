import { describe, expect, it } from "@jest/globals";
import { FunctionTool, LlmAgent, ParallelAgent, SequentialAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import * as api from "@opentelemetry/api";
import type { ReadableSpan, SpanProcessor } from "@opentelemetry/sdk-trace";
import { z } from "zod";
import { createTraceRecorder, type SpanJson } from "../../src/telemetry/index.js";
import { StoreTracer } from "../../src/telemetry/store-tracer.js";
import { TraceAttr } from "../../src/telemetry/trace-attributes.js";
import { collect } from "@agentkit/test-support/collect";
import { staticContext } from "./http-harness.js";

/** A span processor that only counts: it makes the recorder use the OpenTelemetry SDK. */
function countingProcessor(): SpanProcessor & { ended: ReadableSpan[] } {
  const ended: ReadableSpan[] = [];
  return {
    ended,
    onStart() {},
    onEnd(span) {
      ended.push(span);
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
}

/** Sequential and parallel agents, two tool calls in one turn (one fails), usage on the responses. */
function pipeline(): SequentialAgent {
  const tool = new FunctionTool({
    name: "lookup",
    description: "Looks a city up",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      if (city === "nowhere") throw new Error("no such city");
      return { city, found: true };
    },
  });
  const left = new LlmAgent({
    name: "left",
    description: "Looks things up",
    model: new ScriptedModel({
      model: "scripted-left",
      steps: [
        {
          ...ScriptedModel.functionCalls([
            { name: "lookup", args: { city: "Oslo" }, id: "c1" },
            { name: "lookup", args: { city: "nowhere" }, id: "c2" },
          ]),
          usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 2 },
        },
        ScriptedModel.text("left done"),
      ],
    }),
    tools: [tool],
  });
  const right = new LlmAgent({
    name: "right",
    model: new ScriptedModel({ steps: [ScriptedModel.text("right done")] }),
  });
  const closing = new LlmAgent({ name: "closing", model: new ScriptedModel({ steps: [ScriptedModel.text("bye")] }) });
  return new SequentialAgent({
    name: "pipeline",
    subAgents: [new ParallelAgent({ name: "fan", subAgents: [left, right] }), closing],
  });
}

/**
 * The recorded spans with what differs between two runs taken out: ids become the parent's
 * name, ids in attributes a placeholder, times their order (start before end). Sorted, so the
 * interleaving of parallel branches does not matter.
 */
function normalized(spans: SpanJson[]): string[] {
  const byId = new Map(spans.map((span) => [span.span_id, span]));
  const traceIds = new Set(spans.map((span) => span.trace_id));
  expect(traceIds.size).toBe(1);
  return spans
    .map((span) => {
      expect(span.end_time).toBeGreaterThanOrEqual(span.start_time);
      const attributes = { ...span.attributes };
      for (const key of [TraceAttr.invocationId, TraceAttr.eventId]) if (key in attributes) attributes[key] = "<id>";
      return JSON.stringify({
        name: span.name,
        parent: span.parent_span_id === null ? null : (byId.get(span.parent_span_id)?.name ?? "<missing>"),
        attributes: Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b))),
      });
    })
    .sort();
}

async function record(spanProcessors?: () => SpanProcessor[]): Promise<SpanJson[]> {
  const recorder = createTraceRecorder(spanProcessors ? { spanProcessors } : {});
  const ctx = staticContext({ pipe: pipeline() }, [recorder.plugin]);
  const runner = await ctx.runnerFor("pipe");
  await ctx.sessionService.createSession({ appName: "pipe", userId: "u", sessionId: "s1" });
  await collect(
    runner.runAsync({ userId: "u", sessionId: "s1", newMessage: { role: "user", parts: [{ text: "go" }] } }),
  );
  const spans = recorder.spansForSession("s1");
  await ctx.close();
  await recorder.shutdown();
  return spans;
}

describe("the recorder's own tracer (no span processors)", () => {
  it("records the same spans, tree and attributes as the OpenTelemetry SDK path", async () => {
    const processor = countingProcessor();
    const viaSdk = await record(() => [processor]);
    const direct = await record();
    // The SDK path really ran (its processor saw every span) and both recorded a full trace.
    expect(processor.ended).toHaveLength(viaSdk.length);
    expect(viaSdk.map((span) => span.name)).toEqual(
      expect.arrayContaining(["invocation", "invoke_agent fan", "call_llm", "execute_tool lookup"]),
    );
    expect(normalized(direct)).toEqual(normalized(viaSdk));
  });
});

describe("StoreTracer", () => {
  const recorded = () => {
    const spans: SpanJson[] = [];
    return { spans, tracer: new StoreTracer((span) => spans.push(span), api) };
  };

  it("makes valid ids, nests by the context given, and starts a new trace for a root", () => {
    const { spans, tracer } = recorded();
    const root = tracer.startSpan("root", {}, api.ROOT_CONTEXT);
    const child = tracer.startSpan("child", {}, api.trace.setSpan(api.ROOT_CONTEXT, root));
    const other = tracer.startSpan("other", { root: true }, api.trace.setSpan(api.ROOT_CONTEXT, root));
    child.end();
    other.end();
    root.end();
    expect(spans.map((span) => span.name)).toEqual(["child", "other", "root"]);
    const [c, o, r] = spans as [SpanJson, SpanJson, SpanJson];
    for (const span of spans) {
      expect(span.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(span.span_id).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(r.parent_span_id).toBeNull();
    expect(c.parent_span_id).toBe(r.span_id);
    expect(c.trace_id).toBe(r.trace_id);
    expect(o.parent_span_id).toBeNull();
    expect(o.trace_id).not.toBe(r.trace_id);
    expect(root.spanContext()).toEqual({ traceId: r.trace_id, spanId: r.span_id, traceFlags: 1 });
  });

  it("gives every span its own id", () => {
    const { spans, tracer } = recorded();
    for (let i = 0; i < 2000; i++) tracer.startSpan("s", {}, api.ROOT_CONTEXT).end();
    expect(new Set(spans.map((span) => span.span_id)).size).toBe(2000);
    expect(new Set(spans.map((span) => span.trace_id)).size).toBe(2000);
  });

  it("keeps attributes as the SDK keeps the values the store serves", () => {
    const { spans, tracer } = recorded();
    const span = tracer.startSpan("s", { attributes: { a: "x", gone: undefined } }, api.ROOT_CONTEXT);
    span.setAttribute("n", 3);
    span.setAttribute("b", false);
    span.setAttribute("list", ["p", null, "q", undefined] as unknown as string[]);
    span.setAttribute("object", { nested: true } as unknown as string);
    span.setAttribute("", "empty key");
    span.setAttributes({ a: "y", m: 1 });
    span.end();
    span.setAttribute("late", "after end");
    span.end();
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes).toEqual({ a: "y", n: 3, b: false, list: ["p", "q"], m: 1 });
  });

  it("drops new keys past 128 attributes, as the SDK's default limit does, but still overwrites", () => {
    const { spans, tracer } = recorded();
    const span = tracer.startSpan("s", {}, api.ROOT_CONTEXT);
    for (let i = 0; i < 130; i++) span.setAttribute(`k${i}`, i);
    span.setAttribute("k0", "changed");
    span.end();
    const attributes = spans[0]!.attributes;
    expect(Object.keys(attributes)).toHaveLength(128);
    expect(attributes.k0).toBe("changed");
    expect(attributes).not.toHaveProperty("k128");
  });

  it("reads start and end times as the SDK does", () => {
    const { spans, tracer } = recorded();
    // The SDK's clock: the time origin plus the monotonic clock. Date.now() drifts from it over a
    // process's life (clock adjustments; CI once saw 1.1 ms), so the bounds read the same clock.
    const clock = () => performance.timeOrigin + performance.now();
    const before = clock();
    tracer.startSpan("now", {}, api.ROOT_CONTEXT).end();
    const after = clock();
    tracer.startSpan("epoch", { startTime: 1_700_000_000_000 }, api.ROOT_CONTEXT).end(new Date(1_700_000_000_500));
    tracer.startSpan("hr", { startTime: [1_700_000_000, 250] }, api.ROOT_CONTEXT).end([1_700_000_001, 0]);
    tracer.startSpan("monotonic", { startTime: 5 }, api.ROOT_CONTEXT).end(7);
    const [now, epoch, hr, monotonic] = spans as [SpanJson, SpanJson, SpanJson, SpanJson];
    // Rounded to whole nanoseconds: one of slack each way.
    expect(now.start_time).toBeGreaterThanOrEqual(Math.floor(before * 1e6) - 1);
    expect(now.end_time).toBeLessThanOrEqual(Math.ceil(after * 1e6) + 1);
    expect(now.end_time).toBeGreaterThanOrEqual(now.start_time);
    expect([epoch.start_time, epoch.end_time]).toEqual([1_700_000_000_000e6, 1_700_000_000_500e6]);
    expect([hr.start_time, hr.end_time]).toEqual([1_700_000_000e9 + 250, 1_700_000_001e9]);
    // A small number is a \`performance.now()\` reading: milliseconds after the time origin.
    expect(monotonic.start_time).toBe(Math.round((performance.timeOrigin + 5) * 1e6));
    expect(monotonic.end_time - monotonic.start_time).toBeCloseTo(2e6, -3);
  });

  it("runs startActiveSpan's function with the span, under the given parent", () => {
    const { spans, tracer } = recorded();
    const parent = tracer.startSpan("parent", {}, api.ROOT_CONTEXT);
    const result = tracer.startActiveSpan("active", {}, api.trace.setSpan(api.ROOT_CONTEXT, parent), (span) => {
      span.setAttribute("inside", true);
      span.end();
      return 42;
    });
    parent.end();
    expect(result).toBe(42);
    expect(spans[0]).toMatchObject({ name: "active", parent_span_id: spans[1]!.span_id, attributes: { inside: true } });
  });
});
