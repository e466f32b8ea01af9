// `ServerContext.admitRun`: a run made outside the run routes (the A2A routes of
// `agentkit web --a2a`) is admitted as theirs are: turns per session with them, the run rate
// limits, refused while shutting down, waited for and then aborted by shutdown.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createEvent, getTextOf, RunAbortedError } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { deferred } from "@agentkit/test-support/deferred";
import { RateLimitedError } from "../src/http/run-rate-limiter.js";
import { ServerDrainingError } from "../src/errors/server-errors.js";
import { json, post, startTestServer, userMessage, type TestServer } from "./support/test-server.js";

let t: TestServer;
const U = "admit_user";

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function newSession(server: TestServer = t): Promise<string> {
  return (await json(await post(`${server.url}/apps/A/users/${U}/sessions`))).id as string;
}

describe("ServerContext.admitRun", () => {
  it("waits for a /run of the session to end, and a /run waits for the run it admitted", async () => {
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
    // Asked for while the /run is inside its model call: admitted once that run has stored its answer.
    const seen = t.server.context.admitRun(key, new AbortController()).then(async (end) => {
      const session = await t.sessionService.getSession(key);
      return { end, texts: session!.events.map((e) => getTextOf(e.content)) };
    });
    gate.resolve();
    expect((await running).status).toBe(200);
    const { end, texts } = await seen;
    expect(texts).toEqual(["first", "done"]);

    // While the admitted run goes on, a /run waits for it, then sees what it stored.
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
    end();
    expect((await second).status).toBe(200);
    const after = await t.sessionService.getSession(key);
    expect(after!.events.map((e) => getTextOf(e.content))).toEqual(["first", "done", "held", "second", "second done"]);
  });

  it("a run aborted while it waits rejects with RunAbortedError and leaves the line", async () => {
    const sid = await newSession();
    const key = { appName: "A", userId: U, sessionId: sid };
    const end = await t.server.context.admitRun(key, new AbortController());
    const waiting = new AbortController();
    const admitted = t.server.context.admitRun(key, waiting);
    waiting.abort(new Error("task canceled"));
    await expect(admitted).rejects.toBeInstanceOf(RunAbortedError);
    end();
    // The session is free again: the next run is admitted at once.
    (await t.server.context.admitRun(key, new AbortController()))();
  });

  it("counts against the run rate limits of the user", async () => {
    const limited = await startTestServer({ limits: { runsPerUserPerMinute: 1 } });
    try {
      const sid = await newSession(limited);
      const key = { appName: "A", userId: U, sessionId: sid };
      (await limited.server.context.admitRun(key, new AbortController()))();
      await expect(limited.server.context.admitRun(key, new AbortController())).rejects.toBeInstanceOf(
        RateLimitedError,
      );
      // A /run of the same user is refused too: one allowance for both.
      const run = await post(`${limited.url}/run`, {
        appName: "A",
        userId: U,
        sessionId: sid,
        newMessage: userMessage("hi"),
      });
      expect(run.status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("shutdown aborts an admitted run once its grace period is over; a shutting-down server admits none", async () => {
    const closing = await startTestServer({ shutdownGraceMs: 50 });
    const sid = await newSession(closing);
    const key = { appName: "A", userId: U, sessionId: sid };
    const run = new AbortController();
    const end = await closing.server.context.admitRun(key, run);
    const aborted = new Promise<unknown>((resolve) =>
      run.signal.addEventListener("abort", () => resolve(run.signal.reason)),
    );
    const closed = closing.close();
    // Aborted by the shutdown (its grace period is 50 ms here); the close finishes once the run ends.
    const reason = await aborted;
    expect(reason).toBeInstanceOf(ServerDrainingError);
    await expect(closing.server.context.admitRun(key, new AbortController())).rejects.toBeInstanceOf(
      ServerDrainingError,
    );
    end();
    await closed;
  });
});
