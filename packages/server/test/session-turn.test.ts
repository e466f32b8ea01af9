// `ServerContext.acquireSessionTurn`: code that runs a session outside the run routes (the A2A
// routes of `agentkit web --a2a`) takes turns with them, so two runs never append at once.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createEvent, getTextOf, RunAbortedError } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { deferred } from "@agentkit/test-support/deferred";
import { json, post, startTestServer, userMessage, type TestServer } from "./support/test-server.js";

let t: TestServer;
const U = "turn_user";

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function newSession(): Promise<string> {
  return (await json(await post(`${t.url}/apps/A/users/${U}/sessions`))).id as string;
}

describe("ServerContext.acquireSessionTurn", () => {
  it("waits for a /run of the session to end, and a /run waits for it", async () => {
    const sid = await newSession();
    const key = { appName: "A", userId: U, sessionId: sid };
    const inModel = deferred();
    const gate = deferred();
    t.model.push(async () => {
      inModel.resolve();
      await gate.promise;
      return ScriptedModel.text("done");
    });
    const running = post(`${t.url}/run`, { appName: "A", userId: U, sessionId: sid, newMessage: userMessage("first") });
    await inModel.promise;
    // Taken while the run is inside its model call: granted once the run has stored its answer.
    const seen = t.server.context.acquireSessionTurn(key).then(async (release) => {
      const session = await t.sessionService.getSession(key);
      return { release, texts: session!.events.map((e) => getTextOf(e.content)) };
    });
    gate.resolve();
    expect((await running).status).toBe(200);
    const { release, texts } = await seen;
    expect(texts).toEqual(["first", "done"]);

    // Now the turn is held: a /run waits for it, then sees what the holder stored.
    const session = await t.sessionService.getSession(key);
    t.model.push(ScriptedModel.text("second done"));
    const second = post(`${t.url}/run`, { appName: "A", userId: U, sessionId: sid, newMessage: userMessage("second") });
    await t.sessionService.appendEvent({
      session: session!,
      event: createEvent({
        invocationId: "e-held",
        author: "A",
        content: { role: "model", parts: [{ text: "held" }] },
      }),
    });
    release();
    expect((await second).status).toBe(200);
    const after = await t.sessionService.getSession(key);
    expect(after!.events.map((e) => getTextOf(e.content))).toEqual(["first", "done", "held", "second", "second done"]);
  });

  it("a wait cut by its signal rejects with RunAbortedError and leaves the line", async () => {
    const sid = await newSession();
    const key = { appName: "A", userId: U, sessionId: sid };
    const release = await t.server.context.acquireSessionTurn(key);
    const controller = new AbortController();
    const waiting = t.server.context.acquireSessionTurn(key, controller.signal);
    controller.abort(new Error("client left"));
    await expect(waiting).rejects.toBeInstanceOf(RunAbortedError);
    release();
    // The session is free again: the next taker gets it at once.
    const next = await t.server.context.acquireSessionTurn(key);
    next();
  });
});
