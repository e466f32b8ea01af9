// The run routes read the run's session once: the route checks the request against it (a 404, a
// refused answer) and hands it to the runner, which does not read it again. On the SQL and
// MongoDB stores every read is a query (a network round trip on PostgreSQL).
import { once } from "node:events";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import WebSocket from "ws";
import {
  App,
  FunctionNode,
  InMemorySessionService,
  Workflow,
  type GetSessionRequest,
  type Session,
} from "@agentkit/core";
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

/** The in-memory store, counting reads of one session by key. */
class CountingSessionService extends InMemorySessionService {
  readonly reads: string[] = [];
  override async getSession(request: GetSessionRequest): Promise<Session | undefined> {
    this.reads.push(request.sessionId);
    return super.getSession(request);
  }
}

let failOnce = true;
const sessions = new CountingSessionService();
let t: TestServer;
const U = "reads_user";

beforeAll(async () => {
  const flaky = new FunctionNode("work", () => {
    if (failOnce) {
      failOnce = false;
      throw new Error("service down");
    }
    return "done";
  });
  t = await startTestServer({
    sessionService: sessions,
    apps: {
      resumable: new App({
        name: "resumable",
        rootAgent: new Workflow({ name: "flow", edges: [["START", flaky]] }),
        resumability: { isResumable: true },
      }),
    },
  });
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  sessions.reads.length = 0;
});

async function newSession(app = "A"): Promise<string> {
  const id = (await json(await post(`${t.url}/apps/${app}/users/${U}/sessions`))).id as string;
  sessions.reads.length = 0;
  return id;
}
const run = (sid: string, message: unknown, app = "A") =>
  post(`${t.url}/run`, { appName: app, userId: U, sessionId: sid, newMessage: message });

describe("a run reads its session once", () => {
  it("/run of a message, then of the answer to a pending call, each with the whole history", async () => {
    const sid = await newSession();
    t.model.push(ScriptedModel.functionCall("ask_manager", { question: "raise?" }, "lr-1"));
    const first = (await (await run(sid, userMessage("ask my manager"))).json()) as Json[];
    expect(first.some((e) => e.longRunningToolIds?.includes("lr-1"))).toBe(true);
    expect(sessions.reads).toEqual([sid]);

    sessions.reads.length = 0;
    t.model.push(ScriptedModel.text("Your manager said yes"));
    const answer = {
      role: "user",
      parts: [{ functionResponse: { id: "lr-1", name: "ask_manager", response: { answer: "yes" } } }],
    };
    const second = (await (await run(sid, answer)).json()) as Json[];
    expect(second.map((e) => e.content?.parts?.[0]?.text)).toContain("Your manager said yes");
    expect(sessions.reads).toEqual([sid]);
    // The model was given the history the route read: the call and its answer.
    expect(JSON.stringify(t.model.requests[t.model.requests.length - 1]!.contents)).toContain('"answer":"yes"');
  });

  it("/run_sse", async () => {
    const sid = await newSession();
    t.model.push(ScriptedModel.text("Hello"));
    const res = await post(
      `${t.url}/run_sse`,
      { appName: "A", userId: U, sessionId: sid, newMessage: userMessage("hi") },
      { Accept: "text/event-stream" },
    );
    expect(res.status).toBe(200);
    expect(parseSseStrict(await res.text()).map((e) => e.content?.parts?.[0]?.text)).toEqual(["Hello"]);
    expect(sessions.reads).toEqual([sid]);
  });

  it("a refused answer (to no pending call) is a 400 after that one read, and nothing is stored", async () => {
    const sid = await newSession();
    const res = await run(sid, {
      role: "user",
      parts: [{ functionResponse: { id: "nope", name: "ask_manager", response: {} } }],
    });
    expect(res.status).toBe(400);
    expect(sessions.reads).toEqual([sid]);
    sessions.reads.length = 0;
    expect((await json(await fetch(`${t.url}/apps/A/users/${U}/sessions/${sid}`))).events).toEqual([]);
  });

  it("a missing session is a 404 after one read", async () => {
    const res = await run("no-such-session", userMessage("hi"));
    expect(res.status).toBe(404);
    expect(sessions.reads).toEqual(["no-such-session"]);
  });

  it("the Agent Engine route creates a missing session and runs on it without reading it again", async () => {
    t.model.push(ScriptedModel.text("Created"));
    const res = await post(`${t.url}/api/reasoning_engine`, {
      appName: "A",
      userId: U,
      sessionId: "engine-1",
      newMessage: userMessage("hi"),
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain("Created");
    expect(sessions.reads).toEqual(["engine-1"]);
    const stored = await json(await fetch(`${t.url}/apps/A/users/${U}/sessions/engine-1`));
    expect((stored.events as Json[]).map((e) => e.author)).toEqual(["user", "helper"]);
  });

  it("/run_live, and a live call on a missing session closes 1002 after one read", async () => {
    const sid = await newSession("live_app");
    t.liveModel.push([{ content: { role: "model", parts: [{ text: "Hello" }] } }, { turnComplete: true }]);
    const ws = new WebSocket(
      `${t.url.replace("http", "ws")}/run_live?app_name=live_app&user_id=${U}&session_id=${sid}`,
    );
    const frames: Json[] = [];
    ws.on("message", (data) => frames.push(JSON.parse(data.toString()) as Json));
    const closed = once(ws, "close");
    await once(ws, "open");
    ws.send(JSON.stringify({ content: { role: "user", parts: [{ text: "hi" }] } }));
    while (frames.length < 2) await once(ws, "message");
    ws.send(JSON.stringify({ close: true }));
    expect((await closed)[0]).toBe(1000);
    expect(frames.map((f) => f.content?.parts?.[0]?.text ?? "")).toEqual(["Hello", ""]);
    expect(sessions.reads).toEqual([sid]);

    sessions.reads.length = 0;
    const missing = new WebSocket(
      `${t.url.replace("http", "ws")}/run_live?app_name=live_app&user_id=${U}&session_id=nope`,
    );
    expect((await once(missing, "close"))[0]).toBe(1002);
    expect(sessions.reads).toEqual(["nope"]);
  });

  it("resume", async () => {
    const sid = await newSession("resumable");
    expect((await run(sid, userMessage("go"), "resumable")).status).toBe(500);
    t.logger.errors.length = 0;
    sessions.reads.length = 0;
    const resumed = await post(`${t.url}/apps/resumable/users/${U}/sessions/${sid}/resume`, {});
    expect(resumed.status).toBe(200);
    expect(JSON.stringify(await resumed.json())).toContain('"output":"done"');
    expect(sessions.reads).toEqual([sid]);
  });
});
