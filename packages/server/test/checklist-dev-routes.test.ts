import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ScriptedModel } from "@agentkit/core/testing";
import { createGraphRouter } from "../src/index.js";
import { createDebugRouter, createEvalRouter, createInMemoryEvalStore, createTraceRecorder } from "../src/devtools.js";
import { json, post, startTestServer, userMessage, type Json, type TestServer } from "./support/test-server.js";
import { uiSpanProblems } from "./telemetry/ui-span-validator.js";

// Checklist items 31, 32 and 35 of http-api.md section 9, black-box over HTTP against the full
// server, with the debug, graph and eval routers mounted the way apps/dev-server mounts them
// (trace recorder as the first plugin of every runner).
const traces = createTraceRecorder();
let t: TestServer;
let runEvents: Json[];

beforeAll(async () => {
  t = await startTestServer({ plugins: [traces.plugin], mode: "web" });
  t.server.mountDevTools(createDebugRouter({ traces }));
  t.server.mount(createGraphRouter(t.server.context));
  t.server.mountDevTools(createEvalRouter({ ...t.server.context, evalStore: createInMemoryEvalStore() }));
  expect((await post(`${t.url}/apps/A/users/U/sessions`, { sessionId: "s1" })).status).toBe(200);
  t.model.push(ScriptedModel.functionCall("get_weather", { city: "Oslo" }), ScriptedModel.text("Sunny in Oslo."));
  const run = await post(`${t.url}/run`, {
    appName: "A",
    userId: "U",
    sessionId: "s1",
    newMessage: userMessage("weather?"),
  });
  expect(run.status).toBe(200);
  runEvents = (await run.json()) as Json[];
});
afterAll(async () => {
  await t.close();
  await traces.shutdown();
  expect(t.logger.errors).toEqual([]);
});

describe("checklist 31: session trace", () => {
  it("GET /dev/apps/A/debug/trace/session/s1 is a 200 array of spans in the shape the UI accepts", async () => {
    const res = await fetch(`${t.url}/dev/apps/A/debug/trace/session/s1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const spans = (await res.json()) as Json[];
    expect(Array.isArray(spans)).toBe(true);
    expect(spans.length).toBeGreaterThan(0);
    for (const span of spans) {
      expect(typeof span.name).toBe("string");
      expect(typeof span.start_time).toBe("number");
      expect(typeof span.end_time).toBe("number");
      expect(["string", "number"]).toContain(typeof span.span_id);
      expect(["string", "number"]).toContain(typeof span.trace_id);
      expect(span.parent_span_id === null || ["string", "number"].includes(typeof span.parent_span_id)).toBe(true);
      expect(typeof span.attributes).toBe("object");
      expect(Array.isArray(span.attributes)).toBe(false);
    }
    expect(uiSpanProblems(spans)).toEqual([]);
    const modelSpans = spans.filter((s) => (s.attributes as Json)["gen_ai.operation.name"] === "generate_content");
    // One model call for the tool call, one for the answer.
    expect(modelSpans).toHaveLength(2);
    const modelEventIds = runEvents.filter((e) => (e.content as Json | undefined)?.role === "model").map((e) => e.id);
    for (const span of modelSpans) {
      const attributes = span.attributes as Json;
      expect(typeof attributes["gcp.vertex.agent.event_id"]).toBe("string");
      expect(modelEventIds).toContain(attributes["gcp.vertex.agent.event_id"]);
      expect(attributes["gcp.vertex.agent.invocation_id"]).toBe(runEvents[0]!.invocationId);
    }
    expect(spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(["invocation", "invoke_agent helper", "call_llm", "execute_tool get_weather"]),
    );
  });

  it("the legacy /debug/trace/session/s1 answers identically, and an unknown session gives []", async () => {
    const dev = await (await fetch(`${t.url}/dev/apps/A/debug/trace/session/s1`)).text();
    const legacy = await fetch(`${t.url}/debug/trace/session/s1`);
    expect(legacy.status).toBe(200);
    expect(await legacy.text()).toBe(dev);
    for (const path of ["/dev/apps/A/debug/trace/session/nope", "/debug/trace/session/nope"]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([]);
    }
  });

  it("the trace of one model event carries its ids; other event ids are 404", async () => {
    const modelEvent = runEvents.find((e) => (e.content as Json | undefined)?.role === "model")!;
    const res = await fetch(`${t.url}/dev/apps/A/debug/trace/${String(modelEvent.id)}`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body["gcp.vertex.agent.event_id"]).toBe(modelEvent.id);
    expect(typeof body.trace_id).toBe("string");
    expect(typeof body.span_id).toBe("string");
    expect((await fetch(`${t.url}/debug/trace/not-an-event`)).status).toBe(404);
  });
});

describe("checklist 32: app structure and graph images", () => {
  it("GET /dev/apps/A/build_graph: name A and a root_agent object with a string name", async () => {
    const res = await fetch(`${t.url}/dev/apps/A/build_graph`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.name).toBe("A");
    expect(typeof body.root_agent).toBe("object");
    expect(body.root_agent.name).toBe("helper");
    expect(body.root_agent.tools.map((tool: Json) => tool.name)).toEqual([
      "get_weather",
      "ask_manager",
      "transfer_money",
      "save_note",
    ]);
  });

  it('GET /dev/apps/A/build_graph_image?dark_mode=false: a top-level dotSrc string and a "" entry with dotSrc', async () => {
    const res = await fetch(`${t.url}/dev/apps/A/build_graph_image?dark_mode=false`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(typeof body.dotSrc).toBe("string");
    expect(body.dotSrc).toMatch(/digraph/);
    expect(typeof body[""]).toBe("object");
    expect(body[""].dotSrc).toBe(body.dotSrc);
  });

  it("both answer a JSON 404 for an unknown app", async () => {
    for (const path of ["/dev/apps/nope/build_graph", "/dev/apps/nope/build_graph_image?dark_mode=false"]) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status).toBe(404);
      expect((await json(res)).code).toBe("APP_NOT_FOUND");
    }
  });

  it("ADK Python 1.x aliases /dev/build_graph/A and /dev/A/graph answer as /dev/apps/A/build_graph and /dev/apps/A/graph", async () => {
    const [current, legacy] = await Promise.all([
      fetch(`${t.url}/dev/apps/A/build_graph`),
      fetch(`${t.url}/dev/build_graph/A`),
    ]);
    expect(legacy.status).toBe(200);
    expect(await legacy.json()).toEqual(await current.json());
    const [graph, legacyGraph] = await Promise.all([
      fetch(`${t.url}/dev/apps/A/graph?dark_mode=true`),
      fetch(`${t.url}/dev/A/graph?dark_mode=true`),
    ]);
    expect(legacyGraph.status).toBe(200);
    const body = await json(legacyGraph);
    expect(body).toEqual(await graph.json());
    expect(typeof body.dotSrc).toBe("string");
    expect((await fetch(`${t.url}/dev/build_graph/nope`)).status).toBe(404);
    expect((await fetch(`${t.url}/dev/nope/graph`)).status).toBe(404);
  });
});

describe("checklist 35: eval sets (the 200 form)", () => {
  it("GET /dev/apps/A/eval_sets is a 200 JSON array of strings, listing a created set", async () => {
    const empty = await fetch(`${t.url}/dev/apps/A/eval_sets`);
    expect(empty.status).toBe(200);
    expect(empty.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await empty.json()).toEqual([]);
    const created = await post(`${t.url}/dev/apps/A/eval-sets`, {
      eval_set: { eval_set_id: "smoke", model_execution_mode: "live", tool_execution_mode: "live", eval_cases: [] },
    });
    expect(created.status).toBe(200);
    const listed = await fetch(`${t.url}/dev/apps/A/eval_sets`);
    expect(listed.status).toBe(200);
    const ids = (await listed.json()) as unknown[];
    expect(ids).toEqual(["smoke"]);
    expect(ids.every((id) => typeof id === "string")).toBe(true);
  });
});
