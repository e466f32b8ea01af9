// A caller that read the run's session just before the run (the server, to check the request)
// hands it to the runner, which then runs on it instead of reading the session again.
import { describe, expect, it } from "@jest/globals";
import {
  App,
  ConfigurationError,
  FunctionNode,
  InMemorySessionService,
  LlmAgent,
  Runner,
  StaleSessionError,
  Workflow,
  createEvent,
  type Event,
  type GetSessionRequest,
  type Session,
} from "../../src/index.js";
import { withPreloadedSession } from "../../src/internal.js";
import { ScriptedModel } from "../../src/testing/index.js";

/** Counts the reads; everything else is the in-memory store's. */
class CountingSessionService extends InMemorySessionService {
  reads = 0;
  override async getSession(request: GetSessionRequest): Promise<Session | undefined> {
    this.reads++;
    return super.getSession(request);
  }
}

async function collect(events: AsyncGenerator<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function setUp() {
  const sessionService = new CountingSessionService();
  const model = new ScriptedModel({ steps: [ScriptedModel.text("first"), ScriptedModel.text("second")] });
  const runner = new Runner({ appName: "app", agent: new LlmAgent({ name: "a", model }), sessionService });
  const key = { appName: "app", userId: "u", sessionId: "s" };
  return { sessionService, runner, key };
}

describe("a preloaded session", () => {
  it("is run on without another read, and the run is stored as usual", async () => {
    const { sessionService, runner, key } = setUp();
    await sessionService.createSession(key);
    const session = (await sessionService.getSession(key))!;
    sessionService.reads = 0;

    const events = await collect(
      runner.runAsync(withPreloadedSession({ userId: "u", sessionId: "s", newMessage: "hi" }, session)),
    );

    expect(sessionService.reads).toBe(0);
    expect(events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["first"]);
    const stored = (await sessionService.getSession(key))!;
    expect(stored.events.map((e) => [e.author, e.content?.parts?.[0]?.text])).toEqual([
      ["user", "hi"],
      ["a", "first"],
    ]);
    // The next run, without a preloaded session, reads it (once) and sees the whole history.
    sessionService.reads = 0;
    await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "again" }));
    expect(sessionService.reads).toBe(1);
    expect((await sessionService.getSession(key))!.events).toHaveLength(4);
    await runner.close();
  });

  it("does not change the request it is added to", async () => {
    const { sessionService, key } = setUp();
    const session = await sessionService.createSession(key);
    const request = { userId: "u", sessionId: "s", newMessage: "hi" };
    const withSession = withPreloadedSession(request, session);
    expect(withSession).not.toBe(request);
    expect(Object.fromEntries(Object.entries(withSession))).toEqual(request);
    expect(Object.getOwnPropertySymbols(request)).toHaveLength(0);
    expect(Object.getOwnPropertySymbols(withSession)).toHaveLength(1);
    expect(JSON.stringify(withSession)).toBe(JSON.stringify(request));
  });

  it("of another session, user or app is refused before anything is stored", async () => {
    const { sessionService, runner, key } = setUp();
    await sessionService.createSession(key);
    const other = await sessionService.createSession({ ...key, sessionId: "other" });
    const elsewhere = await sessionService.createSession({ appName: "elsewhere", userId: "u", sessionId: "s" });

    for (const wrong of [other, elsewhere, { ...other, id: "s", userId: "v" }]) {
      await expect(
        collect(runner.runAsync(withPreloadedSession({ userId: "u", sessionId: "s", newMessage: "hi" }, wrong))),
      ).rejects.toBeInstanceOf(ConfigurationError);
    }
    expect((await sessionService.getSession(key))!.events).toEqual([]);
    expect((await sessionService.getSession({ ...key, sessionId: "other" }))!.events).toEqual([]);
    await runner.close();
  });

  it("that is stale (the session changed after the read) fails the first append; the change stays", async () => {
    const { sessionService, runner, key } = setUp();
    await sessionService.createSession(key);
    const session = (await sessionService.getSession(key))!;
    // Another writer (another process, say) appends between the caller's read and the run.
    const current = (await sessionService.getSession(key))!;
    await sessionService.appendEvent({
      session: current,
      event: createEvent({
        invocationId: "e-other",
        author: "user",
        content: { role: "user", parts: [{ text: "x" }] },
      }),
    });

    await expect(
      collect(runner.runAsync(withPreloadedSession({ userId: "u", sessionId: "s", newMessage: "hi" }, session))),
    ).rejects.toBeInstanceOf(StaleSessionError);
    const stored = (await sessionService.getSession(key))!;
    expect(stored.events.map((e) => e.invocationId)).toEqual(["e-other"]);
    await runner.close();
  });

  it("is used by resume too", async () => {
    const sessionService = new CountingSessionService();
    let failOnce = true;
    const flaky = new FunctionNode("work", () => {
      if (failOnce) {
        failOnce = false;
        throw new Error("service down");
      }
      return "done";
    });
    const runner = new Runner({
      app: new App({
        name: "app",
        rootAgent: new Workflow({ name: "flow", edges: [["START", flaky]] }),
        resumability: { isResumable: true },
      }),
      sessionService,
    });
    const key = { appName: "app", userId: "u", sessionId: "s" };
    await sessionService.createSession(key);
    await expect(collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "go" }))).rejects.toThrow(
      "service down",
    );
    const session = (await sessionService.getSession(key))!;
    sessionService.reads = 0;

    const resumed = await collect(runner.resume(withPreloadedSession({ userId: "u", sessionId: "s" }, session)));

    expect(sessionService.reads).toBe(0);
    expect(resumed.map((e) => e.output)).toContain("done");
    await runner.close();
  });
});
