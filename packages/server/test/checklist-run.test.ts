// Section 9 of http-api.md, items 16-27 and 37: /run, /run_sse framing, streaming, errors, HITL.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { BaseAgent, createEvent, type Event, type InvocationContext } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  json,
  parseSseStrict,
  post,
  startTestServer,
  userMessage,
  type Json,
  type TestServer,
} from "./support/test-server.js";

/** Yields one event, then fails with an internal error (a run error after the stream started). */
class FailingAgent extends BaseAgent {
  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    yield createEvent({
      invocationId: ctx.invocationId,
      author: this.name,
      content: { role: "model", parts: [{ text: "working" }] },
    });
    throw new Error("database password is hunter2");
  }
}

let t: TestServer;
const U = "run_user";

beforeAll(async () => {
  t = await startTestServer({ apps: { failing: new FailingAgent({ name: "failer" }) } });
});
afterAll(async () => {
  await t.close();
});

async function newSession(app = "A"): Promise<string> {
  return (await json(await post(`${t.url}/apps/${app}/users/${U}/sessions`))).id as string;
}
const getSession = async (sid: string, app = "A") =>
  json(await fetch(`${t.url}/apps/${app}/users/${U}/sessions/${sid}`));
const run = (sid: string, message: unknown, extra: Json = {}) =>
  post(`${t.url}/run`, { appName: "A", userId: U, sessionId: sid, newMessage: message, ...extra });
const runSse = (sid: string, message: unknown, extra: Json = {}, app = "A") =>
  post(
    `${t.url}/run_sse`,
    { appName: app, userId: U, sessionId: sid, newMessage: message, ...extra },
    { Accept: "text/event-stream" },
  );

/** Reads an SSE response, checking it is exactly `data: <compact json>\n\n` frames. */
async function sseFrames(res: Response): Promise<Json[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const body = await res.text();
  const frames = parseSseStrict(body);
  expect(body).toBe(frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join(""));
  return frames;
}

const shape = (e: Json) => ({ author: e.author, content: e.content, partial: e.partial });

describe("checklist 16-19: /run", () => {
  let sid: string;
  let events: Json[];

  beforeAll(async () => {
    sid = await newSession();
    t.model.push(ScriptedModel.text("Hi there"));
    const res = await run(sid, userMessage("hi"));
    expect(res.status).toBe(200);
    events = (await res.json()) as Json[];
  });

  it("16. returns a non-empty array of agent events sharing one invocationId", () => {
    expect(events.length).toBeGreaterThan(0);
    expect(events.some((e) => e.author === "user")).toBe(false);
    const ids = new Set(events.map((e) => e.invocationId));
    expect(ids.size).toBe(1);
    expect(typeof events[0]!.invocationId).toBe("string");
    expect(events[0]!.invocationId.length).toBeGreaterThan(0);
  });

  it("17. every event has id, author, numeric timestamp, the four action maps; text as model content", () => {
    for (const e of events) {
      expect(typeof e.id).toBe("string");
      expect(typeof e.author).toBe("string");
      expect(typeof e.timestamp).toBe("number");
      expect(Math.abs(e.timestamp - Date.now() / 1000)).toBeLessThan(60);
      for (const key of ["stateDelta", "artifactDelta", "requestedAuthConfigs", "requestedToolConfirmations"]) {
        expect(typeof e.actions[key]).toBe("object");
      }
    }
    expect(events[0]!.content).toEqual({ role: "model", parts: [{ text: "Hi there" }] });
  });

  it("18. the session holds the user event with the run's invocationId, then the returned events", async () => {
    const s = await getSession(sid);
    expect(s.events[0].author).toBe("user");
    expect(s.events[0].content.parts[0].text).toBe("hi");
    expect(s.events[0].invocationId).toBe(events[0]!.invocationId);
    expect(s.events.slice(1).map((e: Json) => e.id)).toEqual(events.map((e) => e.id));
  });

  it("19. stateDelta lands in state and on the user event; null stateDelta is fine", async () => {
    t.model.push(ScriptedModel.text("noted"), ScriptedModel.text("again"));
    expect((await run(sid, userMessage("remember"), { stateDelta: { sd: 1 } })).status).toBe(200);
    const s = await getSession(sid);
    expect(s.state.sd).toBe(1);
    const userEvent = s.events.filter((e: Json) => e.author === "user").pop();
    expect(userEvent.actions.stateDelta).toEqual({ sd: 1 });
    expect((await run(sid, userMessage("more"), { stateDelta: null })).status).toBe(200);
  });
});

describe("checklist 20-24: /run_sse", () => {
  it("20. a missing session is a JSON 404 on /run and /run_sse, never a stream", async () => {
    const a = await run("no_such_session", userMessage("hi"));
    expect(a.status).toBe(404);
    expect((await json(a)).code).toBe("SESSION_NOT_FOUND");
    const b = await runSse("no_such_session", userMessage("hi"));
    expect(b.status).toBe(404);
    expect(b.headers.get("content-type")).toMatch(/^application\/json/);
    expect((await json(b)).error).toContain("no_such_session");
    const c = await runSse(await newSession(), userMessage("hi"), {}, "no_such_app");
    expect(c.status).toBe(404);
    expect((await json(c)).code).toBe("APP_NOT_FOUND");
  });

  it("21-22. frames are data: lines of events, the same sequence as /run, without the user's message", async () => {
    const script = () => [
      ScriptedModel.functionCall("get_weather", { city: "Oslo" }, "gw-sse"),
      ScriptedModel.text("Sunny in Oslo"),
    ];
    t.model.push(...script());
    const viaRun = (await (await run(await newSession(), userMessage("weather?"))).json()) as Json[];
    t.model.push(...script());
    const frames = await sseFrames(await runSse(await newSession(), userMessage("weather?"), { streaming: false }));
    expect(frames.map(shape)).toEqual(viaRun.map(shape));
    expect(frames.length).toBe(3);
    expect(frames.some((f) => f.author === "user")).toBe(false);
    for (const f of frames) expect(typeof f.actions.stateDelta).toBe("object");
  });

  it("23. streaming: partial deltas, then the complete text; only the complete event is stored", async () => {
    const sid = await newSession();
    t.model.push({ chunks: ["Echo", ": stream me"] });
    const frames = await sseFrames(await runSse(sid, userMessage("stream me"), { streaming: true }));
    const partials = frames.filter((f) => f.partial === true);
    expect(partials.map((f) => f.content.parts[0].text)).toEqual(["Echo", ": stream me"]);
    const final = frames[frames.length - 1]!;
    expect(final.partial ?? false).toBe(false);
    expect(final.content.parts[0].text).toBe(partials.map((f) => f.content.parts[0].text).join(""));
    expect(new Set(frames.map((f) => f.id)).size).toBe(frames.length);
    const s = await getSession(sid);
    expect(s.events.some((e: Json) => e.partial === true)).toBe(false);
    expect(s.events.map((e: Json) => e.author)).toEqual(["user", "helper"]);
  });

  it("23b. /run ignores streaming: true", async () => {
    t.model.push({ chunks: ["a", "b"] });
    const events = (await (await run(await newSession(), userMessage("x"), { streaming: true })).json()) as Json[];
    expect(events.map((e) => [e.partial ?? false, e.content.parts[0].text])).toEqual([[false, "ab"]]);
  });

  it("24. an error after the stream started is a final error frame (status 200), internals hidden", async () => {
    const sid = await newSession("failing");
    const frames = await sseFrames(await runSse(sid, userMessage("go"), {}, "failing"));
    expect(frames[0]!.content.parts[0].text).toBe("working");
    const last = frames[frames.length - 1]!;
    expect(typeof last.error).toBe("string");
    expect(JSON.stringify(frames)).not.toContain("hunter2");
    expect(t.logger.errors.length).toBe(1); // the server logs it for the operator
    t.logger.errors.length = 0;
  });

  it("24b. the same failure on /run is a 500 JSON with the events produced before it", async () => {
    const sid = await newSession("failing");
    const res = await post(`${t.url}/run`, {
      appName: "failing",
      userId: U,
      sessionId: sid,
      newMessage: userMessage("go"),
    });
    expect(res.status).toBe(500);
    const body = await json(res);
    expect(body.error).toBe("Internal server error");
    expect(body.events.map((e: Json) => e.content.parts[0].text)).toEqual(["working"]);
    expect(JSON.stringify(body)).not.toContain("hunter2");
    t.logger.errors.length = 0;
  });
});

describe("checklist 25-27: tools and human in the loop", () => {
  it("25. a function call is followed by the agent's function response under the same id", async () => {
    t.model.push(ScriptedModel.functionCall("get_weather", { city: "Paris" }, "call-25"), ScriptedModel.text("Sunny"));
    const events = (await (await run(await newSession(), userMessage("weather in Paris"))).json()) as Json[];
    const callAt = events.findIndex((e) => e.content?.parts?.some((p: Json) => p.functionCall));
    const call = events[callAt]!.content.parts.find((p: Json) => p.functionCall).functionCall;
    expect(call).toEqual({ id: "call-25", name: "get_weather", args: { city: "Paris" } });
    const response = events[callAt + 1]!;
    expect(response.author).toBe("helper");
    expect(response.content.role).toBe("user");
    expect(response.content.parts[0].functionResponse).toMatchObject({
      id: "call-25",
      name: "get_weather",
      response: { city: "Paris", forecast: "sunny" },
    });
    expect(events[events.length - 1]!.content.parts[0].text).toBe("Sunny");
  });

  it("26. a long-running call pauses the run; a functionResponse from the client resumes it", async () => {
    const sid = await newSession();
    t.model.push(ScriptedModel.functionCall("ask_manager", { question: "raise?" }, "lr-26"));
    const first = await sseFrames(await runSse(sid, userMessage("ask my manager")));
    const callEvent = first.find((e) => e.longRunningToolIds?.includes("lr-26"));
    expect(callEvent).toBeDefined();
    expect(first.some((e) => e.content?.parts?.some((p: Json) => p.functionResponse))).toBe(false);

    t.model.push(ScriptedModel.text("Your manager said yes"));
    const resumed = await sseFrames(
      await runSse(
        sid,
        {
          role: "user",
          parts: [{ functionResponse: { id: "lr-26", name: "ask_manager", response: { answer: "yes" } } }],
        },
        { functionCallEventId: callEvent!.id },
      ),
    );
    expect(resumed.map((e) => e.content?.parts?.[0]?.text)).toContain("Your manager said yes");
    expect(resumed.some((e) => e.author === "user")).toBe(false);
    const lastRequest = t.model.requests[t.model.requests.length - 1]!;
    expect(JSON.stringify(lastRequest.contents)).toContain('"answer":"yes"');
  });

  it("27. a confirmation-gated tool asks adk_request_confirmation; confirming runs it under the original id", async () => {
    const sid = await newSession();
    t.model.push(ScriptedModel.functionCall("transfer_money", { amount: 10 }, "tm-27"));
    const first = (await (await run(sid, userMessage("send 10"))).json()) as Json[];
    const request = first.find((e) =>
      e.content?.parts?.some((p: Json) => p.functionCall?.name === "adk_request_confirmation"),
    );
    expect(request).toBeDefined();
    const confirmationCall = request!.content.parts.find(
      (p: Json) => p.functionCall?.name === "adk_request_confirmation",
    ).functionCall;
    expect(confirmationCall.args.originalFunctionCall.id).toBe("tm-27");
    expect(confirmationCall.args.toolConfirmation.confirmed).toBe(false);
    expect(request!.longRunningToolIds).toContain(confirmationCall.id);

    t.model.push(ScriptedModel.text("Transferred"));
    const answer = {
      role: "user",
      parts: [
        {
          functionResponse: {
            id: confirmationCall.id,
            name: "adk_request_confirmation",
            response: { confirmed: true },
          },
        },
      ],
    };
    const second = (await (await run(sid, answer, { functionCallEventId: request!.id })).json()) as Json[];
    const toolResponse = second
      .flatMap((e) => e.content?.parts ?? [])
      .find((p: Json) => p.functionResponse?.name === "transfer_money");
    expect(toolResponse.functionResponse).toMatchObject({ id: "tm-27", response: { done: true, amount: 10 } });
    expect(second[second.length - 1]!.content.parts[0].text).toBe("Transferred");
  });
});

describe("checklist 37: snake_case request bodies", () => {
  it("37. app_name, user_id, session_id, new_message, state_delta work like camelCase", async () => {
    const sid = await newSession();
    t.model.push(ScriptedModel.text("snake ok"));
    const res = await post(`${t.url}/run`, {
      app_name: "A",
      user_id: U,
      session_id: sid,
      new_message: { role: "user", parts: [{ text: "hi" }] },
      state_delta: { snake: true },
    });
    expect(res.status).toBe(200);
    const events = (await res.json()) as Json[];
    expect(events[0]!.content.parts[0].text).toBe("snake ok");
    expect((await getSession(sid)).state.snake).toBe(true);
  });

  it("the script was fully used and nothing else was logged", () => {
    t.model.assertConsumed();
    expect(t.logger.errors).toEqual([]);
  });
});

describe("exposeErrorMessages (what `agentkit web` turns on for its local developer)", () => {
  let exposed: TestServer;
  beforeAll(async () => {
    exposed = await startTestServer({
      apps: { failing: new FailingAgent({ name: "failer" }) },
      exposeErrorMessages: true,
    });
  });
  afterAll(async () => {
    await exposed.close();
  });

  it("sends the failure's message (never its stack) in the SSE error frame and the /run error body", async () => {
    const sid = (await json(await post(`${exposed.url}/apps/failing/users/${U}/sessions`))).id as string;
    const res = await post(`${exposed.url}/run_sse`, {
      appName: "failing",
      userId: U,
      sessionId: sid,
      newMessage: userMessage("go"),
    });
    const frames = await sseFrames(res);
    expect(frames.at(-1)).toEqual({ error: "Error: database password is hunter2", code: "INTERNAL" });
    const run = await post(`${exposed.url}/run`, {
      appName: "failing",
      userId: U,
      sessionId: sid,
      newMessage: userMessage("go"),
    });
    expect(run.status).toBe(500);
    const body = await json(run);
    expect(body.error).toBe("Error: database password is hunter2");
    expect(JSON.stringify(body)).not.toMatch(/\n\s+at |checklist-run\.test/);
    exposed.logger.errors.length = 0;
  });
});
