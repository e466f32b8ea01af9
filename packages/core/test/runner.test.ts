import { describe, expect, it } from "@jest/globals";
import {
  App,
  BasePlugin,
  ConfigurationError,
  InMemoryRunner,
  InMemorySessionService,
  Runner,
  RunAbortedError,
  SessionNotFoundError,
  StreamingMode,
  createEvent,
  type Content,
  type Event,
  type InvocationContext,
} from "../src/index.js";
import {
  FOREVER_MS,
  RecordingPlugin,
  ScriptAgent,
  collect,
  deferred,
  say,
  settle,
  userText,
} from "./runner-fixtures/test-agents.js";

async function setup(agent: ScriptAgent, plugins: BasePlugin[] = []) {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: "app", agent, sessionService, plugins });
  const session = await sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const stored = async () => (await sessionService.getSession({ appName: "app", userId: "u", sessionId: "s" }))!;
  return { runner, sessionService, session, stored };
}

describe("Runner.runAsync", () => {
  it("appends the user event with its stateDelta under the run's invocation id, then persists events in order", async () => {
    const agent = new ScriptAgent({
      name: "root",
      steps: [say("one", { actions: { stateDelta: { a: 1 } } }), say("two")],
    });
    const { runner, stored } = await setup(agent);
    const events = await collect(
      runner.runAsync({ userId: "u", sessionId: "s", newMessage: userText("hi"), stateDelta: { mood: "ok" } }),
    );

    expect(events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["one", "two"]);
    const session = await stored();
    expect(session.events).toHaveLength(3);
    const [user, ...rest] = session.events;
    expect(user!.author).toBe("user");
    expect(user!.content).toEqual(userText("hi"));
    expect(user!.actions.stateDelta).toEqual({ mood: "ok" });
    expect(new Set(session.events.map((e) => e.invocationId))).toEqual(new Set([events[0]!.invocationId]));
    expect(events[0]!.invocationId).toMatch(/^e-[0-9a-f-]{36}$/);
    expect(rest).toEqual(events); // persisted == yielded, in order
    expect(session.state).toEqual({ mood: "ok", a: 1 });
  });

  it("persists each event before the agent continues", async () => {
    const agent = new ScriptAgent({
      name: "root",
      steps: [say("one", { actions: { stateDelta: { a: 1 } } }), say("two")],
    });
    const { runner } = await setup(agent);
    await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi" }));
    expect(agent.seen[0]!.eventCount).toBe(1); // only the user event
    expect(agent.seen[1]!.eventCount).toBe(2);
    expect(agent.seen[1]!.stateBefore).toEqual({ a: 1 });
  });

  it("persists and yields the event an onEventCallback plugin returns", async () => {
    class Stamp extends BasePlugin {
      constructor() {
        super("stamp");
      }
      override onEventCallback({ event }: { event: Event }) {
        return {
          ...event,
          customMetadata: { stamped: true },
          content: { role: "model", parts: [{ text: "modified" }] },
        };
      }
    }
    const agent = new ScriptAgent({ name: "root", steps: [say("original")] });
    const { runner, stored } = await setup(agent, [new Stamp()]);
    const events = await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi" }));
    expect(events[0]!.content?.parts?.[0]?.text).toBe("modified");
    expect(events[0]!.customMetadata).toEqual({ stamped: true });
    expect((await stored()).events[1]).toEqual(events[0]);
  });

  it("lets onUserMessageCallback replace the message and attaches runConfig.customMetadata to every event", async () => {
    class Rewrite extends BasePlugin {
      constructor() {
        super("rewrite");
      }
      override onUserMessageCallback() {
        return userText("rewritten");
      }
    }
    let seenUserContent: Content | undefined;
    class Peek extends ScriptAgent {
      protected override async *runAsyncImpl(ctx: InvocationContext) {
        seenUserContent = ctx.userContent;
        yield* super.runAsyncImpl(ctx);
      }
    }
    const agent = new Peek({ name: "root", steps: [say("x", { customMetadata: { own: 1 } })] });
    const { runner, stored } = await setup(agent, [new Rewrite()]);
    const events = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: "original",
        runConfig: { customMetadata: { run: "r1", own: 0 } },
      }),
    );
    expect(seenUserContent).toEqual(userText("rewritten"));
    const session = await stored();
    expect(session.events[0]!.content).toEqual(userText("rewritten"));
    expect(session.events[0]!.customMetadata).toEqual({ run: "r1", own: 0 });
    expect(events[0]!.customMetadata).toEqual({ run: "r1", own: 1 });
  });

  it("beforeRunCallback content answers instead of the agent and ends the run", async () => {
    const recorder = new RecordingPlugin();
    class Gate extends BasePlugin {
      constructor() {
        super("gate");
      }
      override beforeRunCallback(): Content {
        return { role: "model", parts: [{ text: "closed for today" }] };
      }
    }
    const agent = new ScriptAgent({ name: "root", steps: [say("never")] });
    const { runner, stored } = await setup(agent, [recorder, new Gate()]);
    const events = await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi" }));
    expect(events).toHaveLength(1);
    expect(events[0]!.author).toBe("root");
    expect(events[0]!.content?.parts?.[0]?.text).toBe("closed for today");
    expect(agent.seen).toHaveLength(0);
    expect((await stored()).events.map((e) => e.author)).toEqual(["user", "root"]);
    expect(recorder.calls).toEqual(["onUserMessage", "beforeRun", "afterRun"]);
  });

  it("throws SessionNotFoundError for a missing session unless autoCreateSession", async () => {
    const agent = new ScriptAgent({ name: "root", steps: [say("hello")] });
    const { runner, sessionService } = await setup(agent);
    await expect(collect(runner.runAsync({ userId: "u", sessionId: "nope", newMessage: "hi" }))).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    const events = await collect(
      runner.runAsync({ userId: "u", sessionId: "fresh", newMessage: "hi", runConfig: { autoCreateSession: true } }),
    );
    expect(events).toHaveLength(1);
    const created = await sessionService.getSession({ appName: "app", userId: "u", sessionId: "fresh" });
    expect(created?.events.map((e) => e.author)).toEqual(["user", "root"]);
  });

  it("yields partial events without persisting them (SSE)", async () => {
    const agent = new ScriptAgent({
      name: "root",
      steps: [say("He", { partial: true }), say("llo", { partial: true }), say("Hello")],
    });
    const { runner, stored } = await setup(agent);
    const events = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: "hi",
        runConfig: { streamingMode: StreamingMode.SSE },
      }),
    );
    expect(events.map((e) => [e.content?.parts?.[0]?.text, e.partial ?? false])).toEqual([
      ["He", true],
      ["llo", true],
      ["Hello", false],
    ]);
    const persisted = (await stored()).events;
    expect(persisted.map((e) => e.content?.parts?.[0]?.text)).toEqual(["hi", "Hello"]);
  });

  it("stops promptly on abort, throws RunAbortedError and persists nothing after the abort", async () => {
    const controller = new AbortController();
    // The second step aborts as it starts, then would wait an hour: only the abort ends the run.
    const late = say("late", { onStart: () => controller.abort(), delayMs: FOREVER_MS });
    const agent = new ScriptAgent({ name: "root", steps: [say("first"), late] });
    const recorder = new RecordingPlugin();
    const { runner, stored } = await setup(agent, [recorder]);
    const seen: Event[] = [];
    const run = (async () => {
      for await (const e of runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: "hi",
        signal: controller.signal,
      })) {
        seen.push(e);
      }
    })();
    await expect(run).rejects.toBeInstanceOf(RunAbortedError);
    expect(seen.map((e) => e.content?.parts?.[0]?.text)).toEqual(["first"]);
    expect((await stored()).events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["hi", "first"]);
    expect(recorder.calls.filter((c) => c === "afterRun")).toHaveLength(1);
    expect(recorder.runEndings[0]).toBeInstanceOf(RunAbortedError);
    await agent.finished;
    expect(agent.finallyRan).toBe(1);
  });

  it("stops promptly on abort even when the agent ignores the signal", async () => {
    const waiting = deferred();
    const release = deferred();
    const producedB = deferred();
    class Deaf extends ScriptAgent {
      protected override async *runAsyncImpl(ctx: InvocationContext) {
        yield createEvent({
          author: this.name,
          invocationId: ctx.invocationId,
          content: { role: "model", parts: [{ text: "a" }] },
        });
        waiting.resolve();
        await release; // ignores ctx.signal: only the test lets it go on
        producedB.resolve();
        yield createEvent({
          author: this.name,
          invocationId: ctx.invocationId,
          content: { role: "model", parts: [{ text: "b" }] },
        });
      }
    }
    const agent = new Deaf({ name: "root" });
    const { runner, stored } = await setup(agent);
    const controller = new AbortController();
    const gen = runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi", signal: controller.signal });
    await gen.next();
    const next = gen.next();
    await waiting;
    controller.abort();
    // The run ends while the agent is still blocked.
    await expect(next).rejects.toBeInstanceOf(RunAbortedError);
    // What the agent produces after the abort is never persisted.
    release.resolve();
    await producedB;
    await settle();
    expect((await stored()).events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["hi", "a"]);
  });

  it("rejects a run whose signal is already aborted without touching the session", async () => {
    const agent = new ScriptAgent({ name: "root", steps: [say("x")] });
    const { runner, stored } = await setup(agent);
    await expect(
      collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi", signal: AbortSignal.abort() })),
    ).rejects.toBeInstanceOf(RunAbortedError);
    expect((await stored()).events).toHaveLength(0);
  });

  it("stops the agent when the consumer breaks out, running afterRun once", async () => {
    const agent = new ScriptAgent({ name: "root", steps: [say("1"), say("2"), say("3")] });
    const recorder = new RecordingPlugin();
    const { runner, stored } = await setup(agent, [recorder]);
    for await (const e of runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi" })) {
      expect(e.content?.parts?.[0]?.text).toBe("1");
      break;
    }
    expect(agent.finallyRan).toBe(1);
    expect(agent.seen).toHaveLength(1);
    expect((await stored()).events).toHaveLength(2);
    expect(recorder.calls.filter((c) => c === "afterRun")).toHaveLength(1);
    expect(recorder.runEndings).toEqual([undefined]); // a consumer's break is no error
  });

  it("propagates an agent error as thrown and still runs afterRun", async () => {
    class Boom extends ScriptAgent {
      // biome-ignore lint/correctness/useYield: an agent that fails before its first event
      protected override async *runAsyncImpl(): AsyncGenerator<Event, void, void> {
        throw new ConfigurationError("boom");
      }
    }
    const recorder = new RecordingPlugin();
    const { runner } = await setup(new Boom({ name: "root" }), [recorder]);
    await expect(collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi" }))).rejects.toThrow("boom");
    expect(recorder.calls.at(-1)).toBe("afterRun");
    expect(recorder.runEndings).toHaveLength(1);
    expect(recorder.runEndings[0]).toBeInstanceOf(ConfigurationError);
    expect((recorder.runEndings[0] as Error).message).toBe("boom");
  });

  it("saves inline data of the message as artifacts when asked", async () => {
    const agent = new ScriptAgent({ name: "root", steps: [say("got it")] });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
    const data = Buffer.from("hello").toString("base64");
    const message: Content = {
      role: "user",
      parts: [{ text: "see" }, { inlineData: { mimeType: "text/plain", data } }],
    };
    const events = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: message,
        runConfig: { saveInputBlobsAsArtifacts: true },
      }),
    );
    const filename = `artifact_${events[0]!.invocationId}_1`;
    const session = (await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: "s" }))!;
    expect(session.events[0]!.content?.parts).toEqual([
      { text: "see" },
      { text: `Uploaded file: ${filename}. It is saved into artifacts` },
    ]);
    expect(session.events[0]!.actions.artifactDelta).toEqual({ [filename]: 0 });
    const saved = await runner.artifactService.loadArtifact({ appName: "app", userId: "u", sessionId: "s", filename });
    expect(saved?.inlineData?.data).toBe(data);
    expect(message.parts?.[1]?.inlineData).toBeDefined(); // the caller's message is untouched
  });
});

describe("Runner construction and close", () => {
  it("runs an App with its plugins and validates the app name", async () => {
    const recorder = new RecordingPlugin();
    const app = new App({
      name: "my_app",
      rootAgent: new ScriptAgent({ name: "root", steps: [say("x")] }),
      plugins: [recorder],
    });
    const runner = new InMemoryRunner({ app });
    expect(runner.appName).toBe("my_app");
    await runner.sessionService.createSession({ appName: "my_app", userId: "u", sessionId: "s" });
    await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi" }));
    expect(recorder.calls[0]).toBe("onUserMessage");
    expect(() => new App({ name: "my-app", rootAgent: new ScriptAgent({ name: "r2" }) })).toThrow(ConfigurationError);
    expect(() => new App({ name: "1app", rootAgent: new ScriptAgent({ name: "r3" }) })).toThrow(ConfigurationError);
    expect(
      () =>
        new App({
          name: "ok",
          rootAgent: new ScriptAgent({ name: "r4" }),
          eventsCompactionConfig: { compactionInterval: 0, overlapSize: 0 },
        }),
    ).toThrow(ConfigurationError);
    expect(
      () =>
        new Runner({
          app,
          agent: new ScriptAgent({ name: "r5" }),
          sessionService: new InMemorySessionService(),
        } as never),
    ).toThrow(ConfigurationError);
  });

  it("close() closes plugins and every agent once, is idempotent, and refuses new runs", async () => {
    const child = new ScriptAgent({ name: "child" });
    const root = new ScriptAgent({ name: "root", subAgents: [child] });
    const recorder = new RecordingPlugin();
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: "app", agent: root, sessionService, plugins: [recorder] });
    await Promise.all([runner.close(), runner.close()]);
    await runner.close();
    expect(recorder.closed).toBe(1);
    expect(root.closed).toBe(1);
    expect(child.closed).toBe(1);
    await expect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi" }).next()).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });
});
