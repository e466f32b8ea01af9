// The hot routes answer with JSON serialized once and no ETag (nobody revalidates a run).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ScriptedModel } from "@agentkit/core/testing";
import { post, startTestServer, type TestServer } from "./support/test-server.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe("API answers", () => {
  it("carry no ETag and keep the wire shape (/run, session GET, Agent Engine route)", async () => {
    const created = await post(`${t.url}/apps/A/users/u/sessions`, { sessionId: "etag" });
    expect(created.headers.get("etag")).toBeNull();
    t.model.push(ScriptedModel.text("hello"));
    const run = await post(`${t.url}/run`, {
      appName: "A",
      userId: "u",
      sessionId: "etag",
      newMessage: { role: "user", parts: [{ text: "hi" }] },
    });
    expect(run.headers.get("etag")).toBeNull();
    expect(run.headers.get("content-type")).toContain("application/json");
    const events = (await run.json()) as { content: { parts: { text: string }[] }; actions: Record<string, unknown> }[];
    expect(events).toHaveLength(1);
    expect(events[0]!.content.parts[0]!.text).toBe("hello");
    expect(Object.keys(events[0]!.actions)).toEqual(
      expect.arrayContaining(["stateDelta", "artifactDelta", "requestedAuthConfigs", "requestedToolConfirmations"]),
    );
    const session = await fetch(`${t.url}/apps/A/users/u/sessions/etag`);
    expect(session.headers.get("etag")).toBeNull();
    const body = (await session.json()) as { events: unknown[]; lastUpdateTime: number };
    expect(body.events).toHaveLength(2);
    expect(typeof body.lastUpdateTime).toBe("number");
    t.model.push(ScriptedModel.text("engine"));
    const engine = await post(`${t.url}/api/reasoning_engine`, {
      input: {
        appName: "A",
        userId: "u",
        sessionId: "engine-new",
        newMessage: { role: "user", parts: [{ text: "x" }] },
      },
    });
    expect(engine.status).toBe(200);
    const output = (await engine.json()) as { output: { content: { parts: { text: string }[] } }[] };
    expect(output.output[0]!.content.parts[0]!.text).toBe("engine");
  });
});
