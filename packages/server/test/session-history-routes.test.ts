// Rewind, fork and the paged session list over HTTP (docs/server.md "Session history").
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { json, post, startTestServer, userMessage, type TestServer } from "./support/test-server.js";

let t: TestServer;
const sessions = (user = "u") => `${t.url}/apps/A/users/${user}/sessions`;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function run(sessionId: string, text: string, stateDelta?: Record<string, unknown>): Promise<string> {
  t.model.push({ content: { role: "model", parts: [{ text: `re: ${text}` }] } });
  const res = await post(`${t.url}/run`, {
    appName: "A",
    userId: "u",
    sessionId,
    newMessage: userMessage(text),
    stateDelta,
  });
  expect(res.status).toBe(200);
  const events = (await res.json()) as { invocationId: string }[];
  return events[0]!.invocationId;
}

describe("POST .../sessions/{sid}/rewind", () => {
  it("rewinds state to before the invocation and answers with the session", async () => {
    await post(sessions(), { sessionId: "rw" });
    await run("rw", "one", { step: 1 });
    const second = await run("rw", "two", { step: 2, extra: true });
    const res = await post(`${sessions()}/rw/rewind`, { invocation_id: second });
    expect(res.status).toBe(200);
    const session = await json(res);
    expect(session.state).toEqual({ step: 1, extra: null });
    expect(session.events.at(-1).actions.rewindBeforeInvocationId).toBe(second);
    expect((await json(await fetch(`${sessions()}/rw`))).events).toHaveLength(session.events.length);
  });

  it("answers typed 4xx errors for a missing body field, an unknown invocation, session or bad id", async () => {
    await post(sessions(), { sessionId: "rw2" });
    const missing = await post(`${sessions()}/rw2/rewind`, {});
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({ code: "INVALID_REQUEST" });
    const unknown = await post(`${sessions()}/rw2/rewind`, { invocationId: "e-none" });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ code: "INVOCATION_NOT_FOUND" });
    const nosession = await post(`${sessions()}/nope/rewind`, { invocationId: "e-none" });
    expect(nosession.status).toBe(404);
    expect(await json(nosession)).toMatchObject({ code: "SESSION_NOT_FOUND" });
    const badKey = await post(`${sessions()}/a%01b/rewind`, { invocationId: "e-none" });
    expect(badKey.status).toBe(400);
    expect(await json(badKey)).toMatchObject({ code: "INVALID_SESSION_KEY" });
  });
});

describe("POST .../sessions/{sid}/fork", () => {
  it("copies the session up to an event into a new session", async () => {
    await post(sessions(), { sessionId: "src" });
    await run("src", "one", { n: 1 });
    await run("src", "two", { n: 2 });
    const source = await json(await fetch(`${sessions()}/src`));
    const cut = source.events[1].id;
    const res = await post(`${sessions()}/src/fork`, { event_id: cut, newSessionId: "copy" });
    expect(res.status).toBe(200);
    const fork = await json(res);
    expect(fork.id).toBe("copy");
    expect(fork.events.map((e: { id: string }) => e.id)).toEqual([source.events[0].id, cut]);
    expect(fork.state).toEqual({ n: 1 });
    const whole = await json(await post(`${sessions()}/src/fork`, {}));
    expect(whole.events).toHaveLength(source.events.length);
  });

  it("answers 404 for an unknown event, 409 for a taken id, 400 for a bad new id", async () => {
    await post(sessions(), { sessionId: "src2" });
    const unknown = await post(`${sessions()}/src2/fork`, { eventId: "nope" });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ code: "EVENT_NOT_FOUND" });
    const taken = await post(`${sessions()}/src2/fork`, { newSessionId: "src2" });
    expect(taken.status).toBe(409);
    const bad = await post(`${sessions()}/src2/fork`, { newSessionId: "a\u0000b" });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ code: "INVALID_SESSION_KEY" });
  });
});

describe("GET .../sessions paging", () => {
  it("stays a bare array, newest first; with pageSize it pages and sends the next token in a header", async () => {
    for (const id of ["p1", "p2", "p3"]) await post(sessions("pager"), { sessionId: id });
    const all = await fetch(sessions("pager"));
    expect(all.headers.get("x-next-page-token")).toBeNull();
    expect(((await all.json()) as { id: string }[]).map((s) => s.id)).toEqual(["p3", "p2", "p1"]);
    const first = await fetch(`${sessions("pager")}?pageSize=2`);
    expect(((await first.json()) as { id: string }[]).map((s) => s.id)).toEqual(["p3", "p2"]);
    const token = first.headers.get("x-next-page-token");
    expect(token).toBeTruthy();
    const second = await fetch(`${sessions("pager")}?page_size=2&page_token=${encodeURIComponent(token!)}`);
    expect(((await second.json()) as { id: string }[]).map((s) => s.id)).toEqual(["p1"]);
    expect(second.headers.get("x-next-page-token")).toBeNull();
  });

  it("refuses a bad pageSize or pageToken with 400", async () => {
    for (const query of ["pageSize=0", "pageSize=abc", "pageSize=1.5", "pageToken=garbage"]) {
      const res = await fetch(`${sessions("pager")}?${query}`);
      expect(res.status).toBe(400);
      expect(["INVALID_REQUEST", "INVALID_SESSION_REQUEST"]).toContain((await json(res)).code);
    }
  });
});
