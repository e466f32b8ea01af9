import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { FunctionTool, LlmAgent, ParallelAgent, SequentialAgent, type Event } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { Graphviz } from "@hpcc-js/wasm-graphviz";
import { createGraphRouter } from "../../src/graph/index.js";
import { getJson, serve, staticContext } from "../telemetry/http-harness.js";

describe("graph routes (http-api.md 4.9, checklist 32)", () => {
  const weather = new FunctionTool({ name: "get_weather", description: "Weather", execute: () => ({ sky: "sunny" }) });
  const model = new ScriptedModel({
    model: "scripted",
    steps: [ScriptedModel.functionCall("get_weather", {}, "c1"), ScriptedModel.text("sunny")],
  });
  const agent = new LlmAgent({ name: "weather_agent", description: "Tells the weather", model, tools: [weather] });
  const leaf = (name: string) => new LlmAgent({ name, model: new ScriptedModel() });
  const pipeline = new SequentialAgent({
    name: "pipeline",
    subAgents: [leaf("first"), new ParallelAgent({ name: "fan", subAgents: [leaf("l"), leaf("r")] })],
  });
  const ctx = staticContext({ weather: agent, flow: pipeline });
  let server: Awaited<ReturnType<typeof serve>>;
  let graphviz: Graphviz;
  const events: Event[] = [];

  beforeAll(async () => {
    graphviz = await Graphviz.load();
    server = await serve(createGraphRouter(ctx));
    await ctx.sessionService.createSession({ appName: "weather", userId: "u", sessionId: "s1" });
    const runner = await ctx.runnerFor("weather");
    for await (const e of runner.runAsync({
      userId: "u",
      sessionId: "s1",
      newMessage: { role: "user", parts: [{ text: "weather?" }] },
    }))
      events.push(e);
  });
  afterAll(async () => {
    await server.close();
    await ctx.close();
  });

  const renders = (dot: string) => expect(graphviz.layout(dot, "svg", "dot")).toContain("<svg");

  it("GET build_graph returns the app structure, 404 JSON for an unknown app", async () => {
    const { status, body } = await getJson(`${server.url}/dev/apps/weather/build_graph`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      name: "weather",
      root_agent: {
        name: "weather_agent",
        type: "agent",
        description: "Tells the weather",
        model: "scripted",
        tools: [{ name: "get_weather", type: "tool" }],
      },
    });
    const flow = (await getJson(`${server.url}/dev/apps/flow/build_graph`)).body as {
      root_agent: { sub_agents: { name: string; sub_agents?: { name: string }[] }[] };
    };
    expect(flow.root_agent.sub_agents.map((s) => s.name)).toEqual(["first", "fan"]);
    expect(flow.root_agent.sub_agents[1]!.sub_agents!.map((s) => s.name)).toEqual(["l", "r"]);
    const missing = await getJson(`${server.url}/dev/apps/nope/build_graph`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: "App not found: nope" });
  });

  it("GET build_graph_image returns the map and a top-level dotSrc, per workflow level, 404 for unknown app or node", async () => {
    const { status, body } = await getJson(`${server.url}/dev/apps/weather/build_graph_image?dark_mode=false`);
    expect(status).toBe(200);
    const map = body as Record<string, unknown> & { dotSrc: string; "": { dotSrc: string } };
    expect(typeof map.dotSrc).toBe("string");
    expect(map[""].dotSrc).toBe(map.dotSrc);
    expect(map.dotSrc).toContain('bgcolor="#ffffff"');
    renders(map.dotSrc);

    const flow = (await getJson(`${server.url}/dev/apps/flow/build_graph_image?dark_mode=true`)).body as Record<
      string,
      { dotSrc: string }
    >;
    expect(Object.keys(flow).sort()).toEqual(["", "dotSrc", "fan"]);
    expect(flow.fan!.dotSrc).toContain('strict digraph "fan"');
    renders(flow.fan!.dotSrc);

    const level = (await getJson(`${server.url}/dev/apps/flow/build_graph_image?node=root_agent/fan@1`)).body as Record<
      string,
      { dotSrc: string }
    >;
    expect(Object.keys(level).sort()).toEqual(["", "dotSrc"]);
    expect(level[""]!.dotSrc).toContain('strict digraph "fan"');

    expect((await getJson(`${server.url}/dev/apps/flow/build_graph_image?node=flow/nothing`)).status).toBe(404);
    expect((await getJson(`${server.url}/dev/apps/nope/build_graph_image?dark_mode=false`)).status).toBe(404);
  });

  it("GET graph returns the plain app graph", async () => {
    const { status, body } = await getJson(`${server.url}/dev/apps/weather/graph?dark_mode=true`);
    expect(status).toBe(200);
    const dot = (body as { dotSrc: string }).dotSrc;
    expect(dot).toContain('bgcolor="#333537"');
    expect(dot).not.toContain("#69CB87");
    renders(dot);
  });

  it("GET an event's graph highlights its edge on both the legacy and /dev paths", async () => {
    const call = events[0]!;
    const answer = events[1]!;
    for (const prefix of ["/apps", "/dev/apps"]) {
      const { status, body } = await getJson(
        `${server.url}${prefix}/weather/users/u/sessions/s1/events/${call.id}/graph`,
      );
      expect(status).toBe(200);
      const dot = (body as { dotSrc: string }).dotSrc;
      expect(dot).toMatch(/"weather_agent" -> "get_weather" \[color="#69CB87"/);
      renders(dot);
    }
    const back = (await getJson(`${server.url}/apps/weather/users/u/sessions/s1/events/${answer.id}/graph`)).body as {
      dotSrc: string;
    };
    expect(back.dotSrc).toMatch(/"weather_agent" -> "get_weather" \[[^\]]*dir="back"/);
  });

  it("answers 404 JSON for an unknown session or event", async () => {
    const noSession = await getJson(`${server.url}/apps/weather/users/u/sessions/nope/events/x/graph`);
    expect(noSession.status).toBe(404);
    expect(noSession.body).toMatchObject({ code: "SESSION_NOT_FOUND" });
    const noEvent = await getJson(`${server.url}/apps/weather/users/u/sessions/s1/events/nope/graph`);
    expect(noEvent).toMatchObject({ status: 404, body: { error: "Event not found: nope" } });
  });
});
