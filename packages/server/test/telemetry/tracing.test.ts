import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigurationError, FunctionTool, LlmAgent, ParallelAgent, SequentialAgent, type Event } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import { createDebugRouter, createTraceRecorder, type SpanJson } from "../../src/telemetry/index.js";
import { getJson, serve, staticContext } from "./http-harness.js";
import { uiSpanProblems } from "./ui-span-validator.js";
import { collect } from "@agentkit/test-support/collect";

const HEX16 = /^[0-9a-f]{16}$/;
const HEX32 = /^[0-9a-f]{32}$/;

function weatherTool() {
  return new FunctionTool({
    name: "get_weather",
    description: "Weather of a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, sky: "sunny" }),
  });
}

/**
 * For overlapping tool spans without relying on timers (a loaded machine can fire a 30 ms and
 * a 1 ms timer together): "slow" finishes only after "fast" has returned.
 */
function gatedWeatherTool() {
  let fastDone!: () => void;
  const fastReturned = new Promise<void>((r) => (fastDone = r));
  return new FunctionTool({
    name: "get_weather",
    description: "Weather of a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      if (city === "slow") {
        await fastReturned;
        await new Promise((r) => setTimeout(r, 5));
      } else setTimeout(fastDone, 0);
      return { city, sky: "sunny" };
    },
  });
}

describe("trace recorder over HTTP (http-api.md 4.8, checklist 31)", () => {
  const recorder = createTraceRecorder();
  const model = new ScriptedModel({
    model: "scripted-weather",
    steps: [
      {
        ...ScriptedModel.functionCall("get_weather", { city: "Oslo" }, "call-1"),
        usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 3 },
      },
      { ...ScriptedModel.text("Sunny in Oslo"), usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 4 } },
    ],
  });
  const agent = new LlmAgent({
    name: "weather_agent",
    description: "Tells the weather",
    model,
    tools: [weatherTool()],
  });
  const ctx = staticContext({ weather: agent }, [recorder.plugin]);
  let server: Awaited<ReturnType<typeof serve>>;
  let events: Event[] = [];

  beforeAll(async () => {
    server = await serve(createDebugRouter({ traces: recorder }));
    const runner = await ctx.runnerFor("weather");
    await ctx.sessionService.createSession({ appName: "weather", userId: "u", sessionId: "s1" });
    events = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s1",
        newMessage: { role: "user", parts: [{ text: "weather in Oslo?" }] },
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    await ctx.close();
    await recorder.shutdown();
  });

  it("serves the session's spans in the UI's shape, with ADK's names and a correct tree", async () => {
    expect(events).toHaveLength(3);
    const { status, body } = await getJson(`${server.url}/dev/apps/weather/debug/trace/session/s1`);
    expect(status).toBe(200);
    expect(uiSpanProblems(body)).toEqual([]);
    const spans = body as SpanJson[];
    expect(spans.map((s) => s.name)).toEqual([
      "invocation",
      "invoke_agent weather_agent",
      "call_llm",
      "execute_tool get_weather",
      "call_llm",
    ]);
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [root] = byName("invocation");
    const [agentSpan] = byName("invoke_agent weather_agent");
    expect(root!.parent_span_id).toBeNull();
    expect(agentSpan!.parent_span_id).toBe(root!.span_id);
    for (const s of [...byName("call_llm"), ...byName("execute_tool get_weather")])
      expect(s.parent_span_id).toBe(agentSpan!.span_id);
    for (const s of spans) {
      expect(s.trace_id).toMatch(HEX32);
      expect(s.trace_id).toBe(root!.trace_id);
      expect(s.span_id).toMatch(HEX16);
      expect(Number.isInteger(s.start_time)).toBe(true);
      expect(s.end_time).toBeGreaterThanOrEqual(s.start_time);
      // nanoseconds since the epoch, not ms or µs
      expect(Math.abs(s.start_time / 1e9 - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(agentSpan!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.conversation.id": "s1",
      "gen_ai.agent.description": "Tells the weather",
    });
    const tool = byName("execute_tool get_weather")[0]!;
    expect(tool.attributes).toMatchObject({ "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call-1" });
    expect(JSON.parse(String(tool.attributes["gcp.vertex.agent.tool_call_args"]))).toEqual({ city: "Oslo" });
    expect(JSON.parse(String(tool.attributes["gcp.vertex.agent.tool_response"]))).toEqual({
      city: "Oslo",
      sky: "sunny",
    });
  });

  it("links each call_llm span to the event its response became", async () => {
    const spans = (await getJson(`${server.url}/debug/trace/session/s1`)).body as SpanJson[];
    const llm = spans.filter((s) => s.name === "call_llm");
    const modelEvents = events.filter((e) => e.content?.role === "model");
    expect(llm.map((s) => s.attributes["gcp.vertex.agent.event_id"])).toEqual(modelEvents.map((e) => e.id));
    expect(llm[0]!.attributes).toMatchObject({
      "gen_ai.system": "gcp.vertex.agent",
      "gen_ai.request.model": "scripted-weather",
      "gen_ai.agent.name": "weather_agent",
      "gcp.vertex.agent.invocation_id": modelEvents[0]!.invocationId,
      "gcp.vertex.agent.session_id": "s1",
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 3,
    });
    const request = JSON.parse(String(llm[0]!.attributes["gcp.vertex.agent.llm_request"])) as {
      contents: { parts: { text?: string }[] }[];
    };
    expect(request.contents[0]!.parts[0]!.text).toBe("weather in Oslo?");
    const response = JSON.parse(String(llm[1]!.attributes["gcp.vertex.agent.llm_response"])) as {
      content: { parts: { text: string }[] };
    };
    expect(response.content.parts[0]!.text).toBe("Sunny in Oslo");
  });

  it("answers the legacy alias identically and [] for an unknown session", async () => {
    const dev = await getJson(`${server.url}/dev/apps/weather/debug/trace/session/s1`);
    const legacy = await getJson(`${server.url}/debug/trace/session/s1`);
    expect(legacy.body).toEqual(dev.body);
    expect(await getJson(`${server.url}/dev/apps/weather/debug/trace/session/nope`)).toMatchObject({
      status: 200,
      body: [],
    });
  });

  it("serves one model event's attributes with trace and span ids, 404 JSON otherwise", async () => {
    const finalEvent = events[2]!;
    for (const path of [`/debug/trace/${finalEvent.id}`, `/dev/apps/weather/debug/trace/${finalEvent.id}`]) {
      const { status, body } = await getJson(server.url + path);
      expect(status).toBe(200);
      expect(body).toMatchObject({ "gcp.vertex.agent.event_id": finalEvent.id, "gen_ai.usage.output_tokens": 4 });
      expect((body as { trace_id: string }).trace_id).toMatch(HEX32);
      expect((body as { span_id: string }).span_id).toMatch(HEX16);
    }
    // A function-response event has no model-call span (as on ADK's JS server).
    const missing = await getJson(`${server.url}/debug/trace/${events[1]!.id}`);
    expect(missing.status).toBe(404);
    expect(missing.contentType).toMatch(/json/);
    expect(missing.body).toMatchObject({ error: "Trace not found", detail: "Trace not found" });
  });
});

describe("trace tree with parallel tools and sub-agents", () => {
  it("parents every span correctly when tools overlap and workflow agents nest", async () => {
    const recorder = createTraceRecorder();
    const left = new LlmAgent({
      name: "left",
      model: new ScriptedModel({
        steps: [
          ScriptedModel.functionCalls([
            { name: "get_weather", args: { city: "slow" }, id: "l1" },
            { name: "get_weather", args: { city: "fast" }, id: "l2" },
          ]),
          ScriptedModel.text("left done"),
        ],
        delayMs: 5,
      }),
      tools: [gatedWeatherTool()],
    });
    const right = new LlmAgent({
      name: "right",
      model: new ScriptedModel({ steps: [ScriptedModel.text("right done")], delayMs: 10 }),
    });
    const closing = new LlmAgent({ name: "closing", model: new ScriptedModel({ steps: [ScriptedModel.text("bye")] }) });
    const root = new SequentialAgent({
      name: "pipeline",
      subAgents: [new ParallelAgent({ name: "fan", subAgents: [left, right] }), closing],
    });
    const ctx = staticContext({ pipe: root }, [recorder.plugin]);
    const runner = await ctx.runnerFor("pipe");
    await ctx.sessionService.createSession({ appName: "pipe", userId: "u", sessionId: "p1" });
    await collect(
      runner.runAsync({ userId: "u", sessionId: "p1", newMessage: { role: "user", parts: [{ text: "go" }] } }),
    );
    const spans = recorder.spansForSession("p1");
    expect(uiSpanProblems(spans)).toEqual([]);
    const one = (name: string) => {
      const found = spans.filter((s) => s.name === name);
      expect(found).toHaveLength(1);
      return found[0]!;
    };
    const parentName = (s: SpanJson) => spans.find((p) => p.span_id === s.parent_span_id)?.name;
    expect(parentName(one("invoke_agent pipeline"))).toBe("invocation");
    expect(parentName(one("invoke_agent fan"))).toBe("invoke_agent pipeline");
    expect(parentName(one("invoke_agent left"))).toBe("invoke_agent fan");
    expect(parentName(one("invoke_agent right"))).toBe("invoke_agent fan");
    expect(parentName(one("invoke_agent closing"))).toBe("invoke_agent pipeline");
    const tools = spans.filter((s) => s.name === "execute_tool get_weather");
    expect(tools.map((t) => t.attributes["gen_ai.tool.call.id"]).sort()).toEqual(["l1", "l2"]);
    for (const t of tools) expect(parentName(t)).toBe("invoke_agent left");
    // The fast tool ended first although it started second: the spans did overlap.
    const [slow, fast] = ["l1", "l2"].map((id) => tools.find((t) => t.attributes["gen_ai.tool.call.id"] === id)!);
    expect(fast!.end_time).toBeLessThan(slow!.end_time);
    for (const llm of spans.filter((s) => s.name === "call_llm")) {
      expect(["invoke_agent left", "invoke_agent right", "invoke_agent closing"]).toContain(parentName(llm));
      expect(parentName(llm)).toBe(`invoke_agent ${String(llm.attributes["gen_ai.agent.name"])}`);
    }
    await ctx.close();
    await recorder.shutdown();
  });
});

describe("trace recorder bounds", () => {
  it("evicts the oldest traces past maxTraces and forgets their events", async () => {
    const recorder = createTraceRecorder({ maxTraces: 2 });
    const model = new ScriptedModel({
      steps: [ScriptedModel.text("a"), ScriptedModel.text("b"), ScriptedModel.text("c")],
    });
    const ctx = staticContext({ app: new LlmAgent({ name: "echo", model }) }, [recorder.plugin]);
    const runner = await ctx.runnerFor("app");
    const finals: Event[] = [];
    for (const sid of ["a", "b", "c"]) {
      await ctx.sessionService.createSession({ appName: "app", userId: "u", sessionId: sid });
      finals.push(
        ...(await collect(
          runner.runAsync({ userId: "u", sessionId: sid, newMessage: { role: "user", parts: [{ text: "hi" }] } }),
        )),
      );
    }
    expect(recorder.spansForSession("a")).toEqual([]);
    expect(recorder.attributesForEvent(finals[0]!.id)).toBeUndefined();
    expect(recorder.spansForSession("b")).toHaveLength(3);
    expect(recorder.spansForSession("c")).toHaveLength(3);
    expect(recorder.attributesForEvent(finals[2]!.id)).toBeDefined();
    await ctx.close();
    await recorder.shutdown();
    expect(recorder.spansForSession("c")).toEqual([]);
  });

  it("keeps at most maxSpans spans, dropping the oldest trace first", async () => {
    const recorder = createTraceRecorder({ maxSpans: 4 });
    const model = new ScriptedModel({ steps: [ScriptedModel.text("a"), ScriptedModel.text("b")] });
    const ctx = staticContext({ app: new LlmAgent({ name: "echo", model }) }, [recorder.plugin]);
    const runner = await ctx.runnerFor("app");
    for (const sid of ["x", "y"]) {
      await ctx.sessionService.createSession({ appName: "app", userId: "u", sessionId: sid });
      await collect(
        runner.runAsync({ userId: "u", sessionId: sid, newMessage: { role: "user", parts: [{ text: "hi" }] } }),
      );
    }
    expect(recorder.spansForSession("x")).toEqual([]);
    expect(recorder.spansForSession("y").map((s) => s.name)).toEqual(["invocation", "invoke_agent echo", "call_llm"]);
    await ctx.close();
    await recorder.shutdown();
  });

  it("refuses a non-positive bound with a typed error", () => {
    expect(() => createTraceRecorder({ maxSpans: 0 })).toThrow(ConfigurationError);
  });
});

describe("span attribute hygiene", () => {
  it("keeps long JSON attributes parseable and bounded, and marks failed tools", async () => {
    const recorder = createTraceRecorder({ maxAttributeChars: 500 });
    const failing = new FunctionTool({
      name: "explode",
      description: "Fails",
      execute: () => {
        throw new Error("boom");
      },
    });
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("explode", { blob: "x".repeat(5000) }, "b1"), ScriptedModel.text("sorry")],
    });
    const ctx = staticContext({ app: new LlmAgent({ name: "risky", model, tools: [failing] }) }, [recorder.plugin]);
    const runner = await ctx.runnerFor("app");
    await ctx.sessionService.createSession({ appName: "app", userId: "u", sessionId: "h1" });
    await collect(
      runner.runAsync({ userId: "u", sessionId: "h1", newMessage: { role: "user", parts: [{ text: "go" }] } }),
    );
    const spans = recorder.spansForSession("h1");
    expect(uiSpanProblems(spans)).toEqual([]);
    const tool = spans.find((s) => s.name === "execute_tool explode")!;
    const args = JSON.parse(String(tool.attributes["gcp.vertex.agent.tool_call_args"])) as {
      truncated: boolean;
      length: number;
      head: string;
    };
    expect(args.truncated).toBe(true);
    expect(args.length).toBeGreaterThan(5000);
    expect(String(tool.attributes["gcp.vertex.agent.tool_call_args"]).length).toBeLessThanOrEqual(600);
    for (const s of spans)
      for (const v of Object.values(s.attributes)) if (typeof v === "string") expect(v.length).toBeLessThanOrEqual(600);
    expect(JSON.parse(String(tool.attributes["gcp.vertex.agent.tool_response"]))).toEqual({ error: "boom" });
    await ctx.close();
    await recorder.shutdown();
  });
});

describe("concurrent runs", () => {
  it("keep their spans in separate traces, one per invocation and session", async () => {
    const recorder = createTraceRecorder();
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("get_weather", { city: "A" }),
        ScriptedModel.functionCall("get_weather", { city: "B" }),
        ScriptedModel.text("a"),
        ScriptedModel.text("b"),
      ],
      delayMs: 10,
    });
    const ctx = staticContext({ app: new LlmAgent({ name: "w", model, tools: [weatherTool()] }) }, [recorder.plugin]);
    const runner = await ctx.runnerFor("app");
    await ctx.sessionService.createSession({ appName: "app", userId: "u", sessionId: "c1" });
    await ctx.sessionService.createSession({ appName: "app", userId: "u", sessionId: "c2" });
    const [first, second] = await Promise.all(
      ["c1", "c2"].map((sid) =>
        collect(
          runner.runAsync({ userId: "u", sessionId: sid, newMessage: { role: "user", parts: [{ text: "go" }] } }),
        ),
      ),
    );
    for (const [sid, events] of [
      ["c1", first!],
      ["c2", second!],
    ] as const) {
      const spans = recorder.spansForSession(sid);
      expect(uiSpanProblems(spans)).toEqual([]);
      expect(new Set(spans.map((s) => s.trace_id)).size).toBe(1);
      expect(spans.map((s) => s.name).sort()).toEqual([
        "call_llm",
        "call_llm",
        "execute_tool get_weather",
        "invocation",
        "invoke_agent w",
      ]);
      const ids = spans.filter((s) => s.name === "call_llm").map((s) => s.attributes["gcp.vertex.agent.event_id"]);
      expect(ids.sort()).toEqual(
        events
          .filter((e) => e.content?.role === "model")
          .map((e) => e.id)
          .sort(),
      );
      for (const s of spans)
        if (s.attributes["gcp.vertex.agent.session_id"] !== undefined)
          expect(s.attributes["gcp.vertex.agent.session_id"]).toBe(sid);
    }
    await ctx.close();
    await recorder.shutdown();
  });
});
