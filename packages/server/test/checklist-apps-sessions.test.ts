// Section 9 of http-api.md, items 1-15 and 35: apps, version, dev UI hosting, sessions.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ScriptedModel } from "@agentkit/core/testing";
import { json, post, send, startTestServer, type TestServer } from "./support/test-server.js";

let t: TestServer;
const U = "user_1";
const sessions = () => `${t.url}/apps/A/users/${U}/sessions`;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe("checklist 1-5: apps, version, dev UI", () => {
  it("1. /list-apps is a JSON array of strings containing A, relative_path ignored", async () => {
    const res = await fetch(`${t.url}/list-apps`);
    expect(res.status).toBe(200);
    const apps = (await res.json()) as unknown[];
    expect(apps).toEqual(["A", "live_app"]);
    expect(await (await fetch(`${t.url}/list-apps?relative_path=./`)).json()).toEqual(apps);
  });

  it("2. /version is an object with a string version", async () => {
    const res = await fetch(`${t.url}/version`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(typeof body.version).toBe("string");
    expect(body.language).toBe("typescript");
  });

  it("3. / redirects to /dev-ui/, /dev-ui redirects to /dev-ui/", async () => {
    const root = await fetch(`${t.url}/`, { redirect: "manual" });
    expect(root.status).toBeGreaterThanOrEqual(300);
    expect(root.status).toBeLessThan(400);
    expect(["/dev-ui", "/dev-ui/"]).toContain(root.headers.get("location"));
    const ui = await fetch(`${t.url}/dev-ui?app=A`, { redirect: "manual" });
    expect(ui.status).toBe(301);
    expect(ui.headers.get("location")).toBe("/dev-ui/?app=A");
  });

  it('4. /dev-ui/ is HTML with <base href="./"> and every referenced script is JavaScript', async () => {
    const res = await fetch(`${t.url}/dev-ui/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<base href="./">');
    expect(html).toContain("not installed");
    const scripts = [...html.matchAll(/src="([^"]+\.js)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      const js = await fetch(new URL(src, `${t.url}/dev-ui/`));
      expect(js.status).toBe(200);
      expect(js.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
    }
  });

  it("5. runtime-config.json has a string backendUrl", async () => {
    const res = await fetch(`${t.url}/dev-ui/assets/config/runtime-config.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ backendUrl: "" });
  });
});

describe("checklist 6-15: sessions", () => {
  let exported: unknown[] = [];

  it("6-7. create with no body: empty session, lastUpdateTime in seconds", async () => {
    const res = await post(sessions());
    expect(res.status).toBe(200);
    const s = await json(res);
    expect(typeof s.id).toBe("string");
    expect(s.id.length).toBeGreaterThan(0);
    expect(s).toMatchObject({ appName: "A", userId: U, state: {}, events: [] });
    expect(typeof s.lastUpdateTime).toBe("number");
    expect(Math.abs(s.lastUpdateTime - Date.now() / 1000)).toBeLessThan(60);
  });

  it("8. create with state keeps k and drops temp:t", async () => {
    const s = await json(await post(sessions(), { state: { k: "v", "temp:t": 1 } }));
    expect(s.state.k).toBe("v");
    expect(s.state).not.toHaveProperty("temp:t");
  });

  it("9. create with body sessionId s1; a duplicate is 409", async () => {
    const s = await json(await post(sessions(), { sessionId: "s1" }));
    expect(s.id).toBe("s1");
    const again = await post(sessions(), { sessionId: "s1" });
    expect(again.status).toBe(409);
    expect((await json(again)).error).toContain("s1");
  });

  it("10. create by path with {state}; a second POST is 4xx", async () => {
    const res = await post(`${sessions()}/s2`, { state: { a: 1 } });
    expect(res.status).toBe(200);
    const s = await json(res);
    expect(s.id).toBe("s2");
    expect(s.state.a).toBe(1);
    const again = await post(`${sessions()}/s2`, { state: { a: 1 } });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);
  });

  it("11. create with imported events shows them in order", async () => {
    // Two events exported from another session's GET: run once to produce them.
    await post(sessions(), { sessionId: "source" });
    t.model.push({ content: { role: "model", parts: [{ text: "hello back" }] } });
    await post(`${t.url}/run`, {
      appName: "A",
      userId: U,
      sessionId: "source",
      newMessage: { role: "user", parts: [{ text: "hello" }] },
    });
    const source = await json(await fetch(`${sessions()}/source`));
    exported = source.events;
    expect(exported).toHaveLength(2);
    const created = await json(await post(sessions(), { events: exported, state: { imported: true } }));
    const got = await json(await fetch(`${sessions()}/${created.id}`));
    expect(got.events.map((e: { id: string }) => e.id)).toEqual(source.events.map((e: { id: string }) => e.id));
    expect(got.events.map((e: { author: string }) => e.author)).toEqual(["user", "helper"]);
    expect(got.events[1].content.parts[0].text).toBe("hello back");
    expect(got.state.imported).toBe(true);
  });

  it("11b. imported events that are not events are a 400 naming the index, and nothing is created", async () => {
    const before = (await json(await fetch(sessions()))).length;
    const res = await post(sessions(), { sessionId: "bad_import", events: [{ author: "user" }, { content: {} }] });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatch(/events\.1/);
    expect((await json(await fetch(sessions()))).length).toBe(before);
  });

  it("12. list is an array with s1 and empty events", async () => {
    const res = await fetch(sessions());
    expect(res.status).toBe(200);
    const list = await res.json();
    expect(Array.isArray(list)).toBe(true);
    const s1 = (list as { id: string; events: unknown[] }[]).find((s) => s.id === "s1");
    expect(s1?.events).toEqual([]);
    expect((list as { events: unknown[] }[]).every((s) => s.events.length === 0)).toBe(true);
  });

  it("13. unknown session, or s1 under another user, is 404 JSON", async () => {
    const missing = await fetch(`${sessions()}/does-not-exist`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).code).toBe("SESSION_NOT_FOUND");
    const other = await fetch(`${t.url}/apps/A/users/someone_else/sessions/s1`);
    expect(other.status).toBe(404);
  });

  it("13b. GET filters with numRecentEvents / afterTimestamp and rejects bad values", async () => {
    const source = await json(await fetch(`${sessions()}/source?numRecentEvents=1`));
    expect(source.events).toHaveLength(1);
    expect(source.events[0].author).toBe("helper");
    const later = await json(await fetch(`${sessions()}/source?after_timestamp=${Date.now() / 1000 + 100}`));
    expect(later.events).toEqual([]);
    const bad = await fetch(`${sessions()}/source?numRecentEvents=abc`);
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toContain("numRecentEvents");
  });

  it("14. PATCH stateDelta updates state and records a user event", async () => {
    const res = await send("PATCH", `${sessions()}/s1`, { stateDelta: { x: 2 } });
    expect(res.status).toBe(200);
    expect((await json(res)).state.x).toBe(2);
    const got = await json(await fetch(`${sessions()}/s1`));
    expect(got.state.x).toBe(2);
    const last = got.events[got.events.length - 1];
    expect(last.author).toBe("user");
    expect(last.actions.stateDelta.x).toBe(2);
    expect(last.invocationId).toMatch(/^p-/);
    expect((await send("PATCH", `${sessions()}/nope`, { stateDelta: { x: 1 } })).status).toBe(404);
    const missing = await send("PATCH", `${sessions()}/s1`, {});
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toContain("stateDelta");
  });

  it("15. DELETE is 204; afterwards 404 and gone from the list", async () => {
    const res = await send("DELETE", `${sessions()}/s2`);
    expect(res.status).toBe(204);
    expect((await fetch(`${sessions()}/s2`)).status).toBe(404);
    const list = (await json(await fetch(sessions()))) as unknown as { id: string }[];
    expect(list.some((s) => s.id === "s2")).toBe(false);
  });
});

describe("checklist 35 and the other app routes", () => {
  it("35. /dev/apps/A/eval_sets is a JSON 404 while no eval router is mounted", async () => {
    const res = await fetch(`${t.url}/dev/apps/A/eval_sets`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect((await json(res)).code).toBe("NOT_FOUND");
  });

  it("app-info describes an LLM app; an unknown app is 404", async () => {
    const info = await json(await fetch(`${t.url}/apps/A/app-info`));
    expect(info).toMatchObject({
      name: "A",
      rootAgentName: "helper",
      description: "Answers deterministically.",
      language: "typescript",
      isComputerUse: false,
    });
    expect((await fetch(`${t.url}/apps/nope/app-info`)).status).toBe(404);
    const detailed = await json(await fetch(`${t.url}/list-apps?detailed=true`));
    expect(detailed.apps.map((a: { name: string }) => a.name)).toEqual(["A", "live_app"]);
  });

  it("/api/reasoning_engine runs flat or under input, creating the session", async () => {
    t.model.push(ScriptedModel.text("engine one"), ScriptedModel.text("engine two"));
    const flat = await post(`${t.url}/api/reasoning_engine`, {
      appName: "A",
      newMessage: { role: "user", parts: [{ text: "hi" }] },
    });
    expect(flat.status).toBe(200);
    expect((await json(flat)).output[0].content.parts[0].text).toBe("engine one");
    const nested = await post(`${t.url}/api/reasoning_engine`, {
      input: { app_name: "A", user_id: "eu", session_id: "es", new_message: { role: "user", parts: [{ text: "yo" }] } },
    });
    expect((await json(nested)).output[0].content.parts[0].text).toBe("engine two");
    expect((await fetch(`${t.url}/apps/A/users/eu/sessions/es`)).status).toBe(200);
    const missing = await post(`${t.url}/api/reasoning_engine`, { input: {} });
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toContain("appName");
  });

  it("/dev-ui/config gives the logo settings", async () => {
    expect(await (await fetch(`${t.url}/dev-ui/config`)).json()).toEqual({ logo_text: null, logo_image_url: null });
  });

  it("/health answers ok", async () => {
    expect(await (await fetch(`${t.url}/health`)).json()).toEqual({ status: "ok" });
  });

  it("memory PATCH adds a session to the memory service; unknown session 404", async () => {
    const res = await send("PATCH", `${t.url}/apps/A/users/${U}/memory`, { session_id: "source" });
    expect(res.status).toBe(200);
    expect(await res.json()).toBeNull();
    const found = await t.memoryService.searchMemory({ appName: "A", userId: U, query: "hello" });
    expect(found.memories.length).toBeGreaterThan(0);
    expect((await send("PATCH", `${t.url}/apps/A/users/${U}/memory`, { sessionId: "nope" })).status).toBe(404);
  });

  it("nothing unexpected was logged", () => {
    expect(t.logger.errors).toEqual([]);
  });
});
