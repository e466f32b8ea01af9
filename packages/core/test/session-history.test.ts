import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { FunctionTool, InMemoryRunner, LlmAgent, SessionNotFoundError, type Event } from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";

// Each turn the model calls `write` (which sets state and saves an artifact), then answers.
function turn(n: number, args: Record<string, unknown>) {
  return [ScriptedModel.functionCall("write", args, `c${n}`), ScriptedModel.text(`done ${n}`)];
}

const write = new FunctionTool({
  name: "write",
  description: "writes state and an artifact",
  parameters: z.object({
    state: z.record(z.string(), z.unknown()).optional(),
    file: z.string().optional(),
    text: z.string().optional(),
  }),
  execute: async ({ state, file, text }, toolContext) => {
    for (const [k, v] of Object.entries(state ?? {})) toolContext.state.set(k, v);
    if (file) await toolContext.saveArtifact(file, { text: text ?? "" });
    return { ok: true };
  },
});

async function setup(steps: ReturnType<typeof turn>[number][]) {
  const model = new ScriptedModel({ steps });
  const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "root", model, tools: [write] }), appName: "app" });
  await runner.sessionService.createSession({
    appName: "app",
    userId: "u",
    sessionId: "s",
    state: { initial: "kept", "user:shared": 0 },
  });
  const run = async (text: string) => {
    const events: Event[] = [];
    for await (const e of runner.runAsync({ userId: "u", sessionId: "s", newMessage: text })) events.push(e);
    return events[0]!.invocationId;
  };
  const session = async (id = "s") =>
    (await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: id }))!;
  const artifact = (file: string, sessionId = "s", version?: number) =>
    runner.artifactService.loadArtifact({ appName: "app", userId: "u", sessionId, filename: file, version });
  return { model, runner, run, session, artifact };
}

describe("Runner.rewind", () => {
  it("restores session state and artifacts to before the invocation and hides it from the model", async () => {
    const { model, runner, run, session, artifact } = await setup([
      ...turn(1, { state: { a: 1, b: "x" }, file: "notes.txt", text: "v0" }),
      ...turn(2, { state: { a: 2, c: true, "user:shared": 2 }, file: "notes.txt", text: "v1" }),
      ...turn(3, { state: { a: 3 }, file: "new.txt", text: "fresh" }),
      ScriptedModel.text("after rewind"),
    ]);
    await run("one");
    const second = await run("two");
    await run("three");
    expect((await session()).state).toMatchObject({ a: 3, b: "x", c: true, initial: "kept", "user:shared": 2 });

    const rewind = await runner.rewind({ userId: "u", sessionId: "s", beforeInvocationId: second });
    expect(rewind.author).toBe("user");
    expect(rewind.actions.rewindBeforeInvocationId).toBe(second);
    // a and c were written since: a back to 1, c did not exist (null); untouched keys stay.
    expect(rewind.actions.stateDelta).toEqual({ a: 1, c: null });
    const after = await session();
    expect(after.state).toEqual({ a: 1, b: "x", c: null, initial: "kept", "user:shared": 2 });
    expect(after.events.at(-1)!.id).toBe(rewind.id);
    // notes.txt gets a new version holding v0; new.txt (absent then) an empty one. History is kept.
    expect(rewind.actions.artifactDelta).toEqual({ "notes.txt": 2, "new.txt": 1 });
    expect(await artifact("notes.txt")).toEqual({ text: "v0" });
    expect(await artifact("notes.txt", "s", 1)).toEqual({ text: "v1" });
    expect(await artifact("new.txt")).toEqual({ inlineData: { mimeType: "application/octet-stream", data: "" } });

    await run("four");
    const texts = model.requests.at(-1)!.contents.flatMap((c) => c.parts?.map((p) => p.text) ?? []);
    expect(texts).toContain("one");
    expect(texts).not.toContain("two");
    expect(texts).not.toContain("three");
    expect(texts).toContain("four");
  });

  it("rewinds twice, the second time across the first rewind", async () => {
    const { runner, run, session } = await setup([
      ...turn(1, { state: { a: 1 } }),
      ...turn(2, { state: { a: 2 } }),
      ...turn(3, { state: { a: 3 } }),
    ]);
    await run("one");
    const second = await run("two");
    await runner.rewind({ userId: "u", sessionId: "s", beforeInvocationId: second });
    expect((await session()).state.a).toBe(1);
    const third = await run("three");
    expect((await session()).state.a).toBe(3);
    await runner.rewind({ userId: "u", sessionId: "s", beforeInvocationId: third });
    expect((await session()).state.a).toBe(1);
  });

  it("refuses an unknown invocation or session with typed errors and stores nothing", async () => {
    const { runner, run, session } = await setup(turn(1, { state: { a: 1 } }));
    await run("one");
    const before = (await session()).events.length;
    await expect(runner.rewind({ userId: "u", sessionId: "s", beforeInvocationId: "e-nope" })).rejects.toMatchObject({
      code: "INVOCATION_NOT_FOUND",
    });
    await expect(runner.rewind({ userId: "u", sessionId: "missing", beforeInvocationId: "x" })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await expect(runner.rewind({ userId: "u", sessionId: "..", beforeInvocationId: "x" })).rejects.toMatchObject({
      code: "INVALID_SESSION_KEY",
    });
    expect((await session()).events).toHaveLength(before);
  });
});

describe("Runner.fork", () => {
  it("copies the events up to an event, the state and artifact versions then, into a new session", async () => {
    const { runner, run, session, artifact } = await setup([
      ...turn(1, { state: { a: 1, "user:shared": 1 }, file: "notes.txt", text: "v0" }),
      ...turn(2, { state: { a: 2, "user:shared": 2 }, file: "notes.txt", text: "v1" }),
      ScriptedModel.text("in the fork"),
    ]);
    await run("one");
    await run("two");
    const source = await session();
    const cut = source.events.findIndex((e) => e.content?.parts?.[0]?.text === "done 1");
    const fork = await runner.fork({ userId: "u", sessionId: "s", eventId: source.events[cut]!.id, newSessionId: "f" });
    expect(fork.id).toBe("f");
    const copy = await session("f");
    expect(copy.events.map((e) => e.id)).toEqual(source.events.slice(0, cut + 1).map((e) => e.id));
    expect(copy.state).toEqual({ a: 1, initial: "kept", "user:shared": 2 });
    expect(await artifact("notes.txt", "f")).toEqual({ text: "v0" });
    expect(await artifact("notes.txt", "f", 1)).toBeUndefined();
    // The source is untouched, and the fork runs on its own.
    expect((await session()).events).toHaveLength(source.events.length);
    for await (const _ of runner.runAsync({ userId: "u", sessionId: "f", newMessage: "more" })) void _;
    expect((await session("f")).events.at(-1)!.content?.parts?.[0]?.text).toBe("in the fork");
    expect((await session()).events).toHaveLength(source.events.length);
  });

  it("copies the whole session when no event is given, and refuses an unknown event", async () => {
    const { runner, run, session } = await setup(turn(1, { state: { a: 1 } }));
    await run("one");
    const fork = await runner.fork({ userId: "u", sessionId: "s" });
    expect(fork.id).not.toBe("s");
    expect((await session(fork.id)).events.map((e) => e.id)).toEqual((await session()).events.map((e) => e.id));
    expect((await session(fork.id)).state).toEqual((await session()).state);
    await expect(runner.fork({ userId: "u", sessionId: "s", eventId: "nope" })).rejects.toMatchObject({
      code: "EVENT_NOT_FOUND",
    });
    await expect(runner.fork({ userId: "u", sessionId: "s", newSessionId: "s" })).rejects.toMatchObject({
      code: "SESSION_ALREADY_EXISTS",
    });
  });
});
