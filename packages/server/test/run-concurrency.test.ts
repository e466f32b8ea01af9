// Runs on one session are serialized; a client that disconnects aborts its run.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { SessionRunQueue } from "../src/index.js";
import { json, post, startTestServer, userMessage, type Json, type TestServer } from "./support/test-server.js";

const slowModel = new ScriptedModel({ delayMs: 300 });
let t: TestServer;
const U = "conc_user";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  t = await startTestServer({ apps: { slow: new LlmAgent({ name: "slowpoke", model: slowModel }) } });
});
afterAll(async () => {
  await t.close();
});

const newSession = async () => (await json(await post(`${t.url}/apps/slow/users/${U}/sessions`))).id as string;
const getSession = async (sid: string) => json(await fetch(`${t.url}/apps/slow/users/${U}/sessions/${sid}`));
const texts = (s: Json) => s.events.map((e: Json) => `${e.author}:${e.content?.parts?.[0]?.text ?? ""}`);

describe("per-session serialization", () => {
  it("two concurrent /run on one session both succeed, one after the other, without interleaving", async () => {
    const sid = await newSession();
    slowModel.push(ScriptedModel.text("first answer"), ScriptedModel.text("second answer"));
    const body = (text: string) => ({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage(text) });
    const [a, b] = await Promise.all([post(`${t.url}/run`, body("one")), post(`${t.url}/run`, body("two"))]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const session = await getSession(sid);
    const order = texts(session);
    // Whichever arrived first ran first; each user message is followed by its own answer.
    expect([
      ["user:one", "slowpoke:first answer", "user:two", "slowpoke:second answer"],
      ["user:two", "slowpoke:first answer", "user:one", "slowpoke:second answer"],
    ]).toContainEqual(order);
    // The second run saw the first one's answer in its model request.
    const second = slowModel.requests[slowModel.requests.length - 1]!;
    expect(JSON.stringify(second.contents)).toContain("first answer");
    expect(t.logger.errors).toEqual([]);
  });

  it("runs on different sessions do not wait for each other", async () => {
    const [s1, s2] = [await newSession(), await newSession()];
    slowModel.push(ScriptedModel.text("x"), ScriptedModel.text("y"));
    const started = Date.now();
    await Promise.all(
      [s1, s2].map((sid) => post(`${t.url}/run`, { appName: "slow", userId: U, sessionId: sid, newMessage: userMessage("hi") })),
    );
    expect(Date.now() - started).toBeLessThan(550); // two 300 ms calls in parallel, not 600 ms in a row
  });

  it("a queued run whose client leaves never runs", async () => {
    const sid = await newSession();
    slowModel.push(ScriptedModel.text("only answer"));
    const body = (text: string) => JSON.stringify({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage(text) });
    const first = fetch(`${t.url}/run`, { method: "POST", headers: { "Content-Type": "application/json" }, body: body("kept") });
    await sleep(50);
    const controller = new AbortController();
    const second = fetch(`${t.url}/run`, { method: "POST", headers: { "Content-Type": "application/json" }, body: body("dropped"), signal: controller.signal });
    await sleep(50);
    controller.abort();
    await expect(second).rejects.toThrow();
    expect((await first).status).toBe(200);
    await sleep(100);
    expect(texts(await getSession(sid))).toEqual(["user:kept", "slowpoke:only answer"]);
    expect(slowModel.remaining).toBe(0);
  });
});

describe("SSE streams as events happen", () => {
  it("the first frame arrives while the run is still going", async () => {
    const sid = await newSession();
    slowModel.push(ScriptedModel.functionCall("nothing", {}, "c-stream"), ScriptedModel.text("done"));
    const res = await post(`${t.url}/run_sse`, { appName: "slow", userId: U, sessionId: sid, newMessage: userMessage("go") });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const arrivals: [number, string][] = [];
    const started = Date.now();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrivals.push([Date.now() - started, Buffer.from(value).toString()]);
    }
    const all = arrivals.map(([, text]) => text).join("");
    expect(all.match(/^data: /gm)).toHaveLength(3); // call, error response for the unknown tool, answer
    const firstAt = arrivals[0]![0];
    const endAt = arrivals[arrivals.length - 1]![0];
    expect(arrivals[0]![1]).toContain("c-stream");
    expect(endAt - firstAt).toBeGreaterThanOrEqual(200); // the answer came a model delay later
  });
});

describe("client disconnect aborts the run", () => {
  for (const route of ["/run", "/run_sse"]) {
    it(`${route}: the model call is cancelled and nothing more is appended`, async () => {
      const sid = await newSession();
      slowModel.push(ScriptedModel.functionCall("nothing", {}, "never-called"));
      const controller = new AbortController();
      const pending = fetch(`${t.url}${route}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage("wait") }),
        signal: controller.signal,
      }).then((res) => res.text());
      await sleep(100); // the model is in its 300 ms delay
      controller.abort();
      await expect(pending).rejects.toThrow();
      await sleep(500); // past the point where the model would have answered
      expect(texts(await getSession(sid))).toEqual(["user:wait"]);
      expect(slowModel.remaining).toBe(0);
      // The session's turn was released: the next run goes through at once.
      slowModel.push(ScriptedModel.text("back"));
      const next = await post(`${t.url}/run`, { appName: "slow", userId: U, sessionId: sid, newMessage: userMessage("again") });
      expect(next.status).toBe(200);
      expect(texts(await getSession(sid))).toEqual(["user:wait", "user:again", "slowpoke:back"]);
      expect(t.logger.errors).toEqual([]);
    });
  }
});

describe("disconnect in the middle of a stream", () => {
  it("stops the run after the frames already sent; later model calls never happen", async () => {
    const sid = await newSession();
    slowModel.push(ScriptedModel.functionCall("nothing", {}, "c-mid"), ScriptedModel.text("too late"));
    const controller = new AbortController();
    const res = await fetch(`${t.url}/run_sse`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage("go") }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toContain("c-mid");
    controller.abort();
    await sleep(600);
    const authors = (await getSession(sid)).events.map((e: Json) => e.author);
    // Message and call, plus the tool's error response when the server got that far before
    // noticing the disconnect; never the second model answer.
    expect([["user", "slowpoke"], ["user", "slowpoke", "slowpoke"]]).toContainEqual(authors);
    expect(texts(await getSession(sid)).join()).not.toContain("too late");
    expect(t.logger.errors).toEqual([]);
  });
});

describe("SessionRunQueue", () => {
  it("grants in arrival order per key and lets aborted waiters leave", async () => {
    const queue = new SessionRunQueue();
    const order: string[] = [];
    const releaseA = await queue.acquire("k");
    const b = queue.acquire("k").then((release) => (order.push("b"), release));
    const controller = new AbortController();
    const c = queue.acquire("k", controller.signal);
    const d = queue.acquire("k").then((release) => (order.push("d"), release));
    const other = await queue.acquire("other"); // another key is free
    other();
    controller.abort();
    await expect(c).rejects.toMatchObject({ code: "RUN_ABORTED" });
    releaseA();
    (await b)();
    (await d)();
    expect(order).toEqual(["b", "d"]);
    expect(queue.size).toBe(0);
  });
});
