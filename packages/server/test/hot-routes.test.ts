// POST /run and POST .../sessions at their exact paths skip the routers; the same requests at a
// path only the routers match (a trailing slash) must get the very same answers.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ScriptedModel } from "@agentkit/core/testing";
import { json, post, startTestServer, userMessage, type TestServer } from "./support/test-server.js";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({});
});
afterAll(async () => {
  await t.close();
});

/** Status and JSON body of the same POST at the exact path and with a trailing slash. */
async function bothWays(
  path: string,
  body?: unknown,
): Promise<[{ status: number; body: unknown }, { status: number; body: unknown }]> {
  const hot = await post(`${t.url}${path}`, body);
  const routed = await post(`${t.url}${path}/`, body);
  return [
    { status: hot.status, body: await json(hot) },
    { status: routed.status, body: await json(routed) },
  ];
}

describe("the hot routes answer as the routers do", () => {
  it("session create: a session either way, its state and id from the body", async () => {
    const [hot, routed] = await bothWays("/apps/A/users/u%20one/sessions", { state: { k: "v" } });
    expect([hot.status, routed.status]).toEqual([200, 200]);
    for (const { body } of [hot, routed])
      expect(body).toMatchObject({ appName: "A", userId: "u one", state: { k: "v" } });
    const ids = await json(await fetch(`${t.url}/apps/A/users/u%20one/sessions`));
    expect(ids).toHaveLength(2);
  });

  it("session create: bad path parameters and bodies are the same 400s", async () => {
    const cases: [string, unknown, string][] = [
      ["/apps/A/users/%E0%A4%A/sessions", {}, "INVALID_URL"],
      ["/apps/A/users/a%0Ab/sessions", {}, "INVALID_SESSION_KEY"],
      [`/apps/${"x".repeat(300)}/users/u/sessions`, {}, "INVALID_SESSION_KEY"],
      ["/apps/A/users/u/sessions", { state: "nope" }, "INVALID_ARGUMENT"],
    ];
    for (const [path, body, code] of cases) {
      const [hot, routed] = await bothWays(path, body);
      expect({ path, ...hot }).toEqual({ path, ...routed });
      expect(hot.status).toBe(400);
      if (code !== "INVALID_ARGUMENT") expect(hot.body).toMatchObject({ code });
    }
  });

  it("run: the same events for the same turn, the same refusals", async () => {
    const sessionA = (await json(await post(`${t.url}/apps/A/users/u/sessions`, {}))).id as string;
    const sessionB = (await json(await post(`${t.url}/apps/A/users/u/sessions`, {}))).id as string;
    t.model.push(ScriptedModel.text("one"), ScriptedModel.text("one"));
    const hot = await post(`${t.url}/run`, {
      appName: "A",
      userId: "u",
      sessionId: sessionA,
      newMessage: userMessage("hi"),
    });
    const routed = await post(`${t.url}/run/`, {
      appName: "A",
      userId: "u",
      sessionId: sessionB,
      newMessage: userMessage("hi"),
    });
    expect([hot.status, routed.status]).toEqual([200, 200]);
    const texts = async (res: Response) =>
      ((await json(res)) as { content?: { parts?: { text?: string }[] } }[]).map((e) => e.content?.parts?.[0]?.text);
    expect(await texts(hot)).toEqual(["one"]);
    expect(await texts(routed)).toEqual(["one"]);
    const [missing, missingRouted] = await bothWays("/run", { appName: "Nope", userId: "u", sessionId: "s" });
    expect(missing).toEqual(missingRouted);
    expect(missing.status).toBe(404);
    const [invalid, invalidRouted] = await bothWays("/run", { appName: "A", userId: "u" });
    expect(invalid).toEqual(invalidRouted);
    expect(invalid.status).toBe(400);
  });
});
