import { inspect } from "node:util";
import { describe, expect, it } from "@jest/globals";
import {
  App,
  createEvent,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  LongRunningFunctionTool,
  Runner,
  SequentialAgent,
  type Content,
  type Event,
  type Session,
} from "../src/index.js";
import { OVER_LOG_FROM, sessionEvents } from "../src/sessions/session-events.js";
import { ScriptedModel } from "../src/testing/index.js";
import { collect } from "./runner-fixtures/test-agents.js";

const key = { appName: "app", userId: "u", sessionId: "s" };

function said(text: string, author = "user"): Event {
  return createEvent({ invocationId: "e-1", author, content: { role: "user", parts: [{ text }] } });
}

/**
 * A service holding one session with a long history (`OVER_LOG_FROM` events, "old") and then
 * `count` more ("m0", "m1", ...).
 */
async function sessionWith(count: number, long = OVER_LOG_FROM): Promise<InMemorySessionService> {
  const service = new InMemorySessionService();
  const session = await service.createSession(key);
  for (let i = 0; i < long; i++) await service.appendEvent({ session, event: said("old") });
  for (let i = 0; i < count; i++) await service.appendEvent({ session, event: said(`m${i}`) });
  return service;
}

const read = async (service: InMemorySessionService) => (await service.getSession(key))!;
/** The texts of the events after the long prefix. */
const texts = (events: readonly Event[]) => events.slice(OVER_LOG_FROM).map((e) => e.content?.parts?.[0]?.text);

/** Counts reads of `session.events` (the accessor that builds the session's own list). */
function countEventsReads(session: Session): { reads: number } {
  const counter = { reads: 0 };
  const { get, set } = Object.getOwnPropertyDescriptor(session, "events")!;
  Object.defineProperty(session, "events", {
    enumerable: true,
    configurable: true,
    get() {
      counter.reads++;
      return get!.call(session);
    },
    set,
  });
  return counter;
}

/** From now on, every session `service` reads counts reads of its `session.events`. */
function countReadsOfEverySession(service: InMemorySessionService): { reads: number }[] {
  const counters: { reads: number }[] = [];
  const getSession = service.getSession.bind(service);
  service.getSession = async (request) => {
    const session = await getSession(request);
    if (session) counters.push(countEventsReads(session));
    return session;
  };
  return counters;
}

describe("a session read over the store's list of events", () => {
  it("shares the store's list with readers until something reads session.events, without copying it", async () => {
    const service = await sessionWith(3);
    const a = await read(service);
    const b = await read(service);
    // Both follow the store's one list: no copy per read.
    expect(sessionEvents(a)).toBe(sessionEvents(b));
    expect(texts(sessionEvents(a))).toEqual(["m0", "m1", "m2"]);
    // session.events is the caller's own array, built on first read and then kept.
    const own = a.events;
    expect(own).not.toBe(sessionEvents(b));
    expect(a.events).toBe(own);
    expect(sessionEvents(a)).toBe(own);
    own.push(said("local"));
    own.splice(0, 1);
    // Editing it changes neither the store nor another reader.
    expect(texts((await read(service)).events)).toEqual(["m0", "m1", "m2"]);
    expect(texts(b.events)).toEqual(["m0", "m1", "m2"]);
  });

  it("looks like plain data: keys in order, JSON, spread, structuredClone, assignment", async () => {
    const service = await sessionWith(2);
    const session = await read(service);
    expect(Object.keys(session)).toEqual(["id", "appName", "userId", "state", "events", "lastUpdateTime"]);
    const json = JSON.parse(JSON.stringify(session)) as { events: unknown[] };
    expect(json.events).toHaveLength(OVER_LOG_FROM + 2);
    expect({ ...session }.events).toHaveLength(OVER_LOG_FROM + 2);
    expect(structuredClone(session).events).toHaveLength(OVER_LOG_FROM + 2);
    expect(session).toEqual({ ...session, events: [...session.events] });
    expect(session).toStrictEqual({ ...session });
    // Shown as the data it stands for, not `events: [Getter/Setter]`.
    expect(inspect(session, { depth: 4 })).toBe(inspect({ ...session }, { depth: 4 }));
    session.events = [];
    expect(session.events).toEqual([]);
    expect(sessionEvents(session)).toEqual([]);
  });

  it("keeps following the list through its own appends; session.events then holds the caller's events", async () => {
    const service = await sessionWith(2);
    const session = await read(service);
    const log = sessionEvents(session);
    const mine = said("mine", "agent");
    await service.appendEvent({ session, event: mine });
    // The store pushed its copy onto the same list: still no copy of the history.
    expect(sessionEvents(session)).toBe(log);
    expect(texts(log)).toEqual(["m0", "m1", "mine"]);
    expect(Object.isFrozen(log[2])).toBe(true);
    // The caller's list has the caller's own (mutable) event object, as when the list was built first.
    const built = session.events;
    expect(built.at(-1)).toBe(mine);
    expect(texts(built)).toEqual(["m0", "m1", "mine"]);
    await service.appendEvent({ session, event: said("after") });
    expect(texts(session.events)).toEqual(["m0", "m1", "mine", "after"]);
    expect(texts((await read(service)).events)).toEqual(["m0", "m1", "mine", "after"]);
  });

  it("stops following the list once another writer appended to it, and never shows that writer's events", async () => {
    const service = await sessionWith(2);
    const mine = await read(service);
    const other = await read(service);
    await service.appendEvent({ session: other, event: said("theirs") });
    // The list grew past what `mine` was read with: `mine` answers with its own copy.
    expect(texts(sessionEvents(mine))).toEqual(["m0", "m1"]);
    expect(texts(mine.events)).toEqual(["m0", "m1"]);
    // Its append is refused as stale, and nothing of it lands in its list or the store.
    await expect(service.appendEvent({ session: mine, event: said("late") })).rejects.toThrow(/last updated/);
    expect(texts(mine.events)).toEqual(["m0", "m1"]);
    expect(texts((await read(service)).events)).toEqual(["m0", "m1", "theirs"]);
  });

  it("gives a filtered read, and a short history, a plain array of its own", async () => {
    const service = await sessionWith(4);
    const recent = (await service.getSession({ ...key, config: { numRecentEvents: 2 } }))!;
    expect(recent.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["m2", "m3"]);
    expect(Object.getOwnPropertyDescriptor(recent, "events")!.value).toBe(recent.events);
    expect(Object.keys(recent)).toEqual(["id", "appName", "userId", "state", "events", "lastUpdateTime"]);
    expect(sessionEvents(recent)).toBe(recent.events);
    await service.appendEvent({ session: recent, event: said("next") });
    expect(recent.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["m2", "m3", "next"]);
    // Under OVER_LOG_FROM events a read is a plain copy: cheaper than the accessor.
    const short = await sessionWith(3, 0);
    const [a, b] = [await read(short), await read(short)];
    expect(Object.getOwnPropertyDescriptor(a, "events")!.value).toEqual(sessionEvents(b));
    expect(sessionEvents(a)).not.toBe(sessionEvents(b));
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
  });
});

describe("a run on a long session", () => {
  it("never builds the session's own list of events: the runner reads the store's", async () => {
    const service = await sessionWith(40);
    const before = OVER_LOG_FROM + 40;
    const tool = new FunctionTool({ name: "lookup", description: "Looks up.", execute: () => ({ found: 1 }) });
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("lookup", {}, "c1"), ScriptedModel.text("done")],
    });
    const runner = new Runner({
      appName: "app",
      agent: new LlmAgent({ name: "root", model, tools: [tool] }),
      sessionService: service,
    });
    const counters = countReadsOfEverySession(service);
    const events = await collect(
      runner.runAsync({ userId: "u", sessionId: "s", newMessage: { role: "user", parts: [{ text: "go" }] } }),
    );
    expect(events.at(-1)!.content?.parts?.[0]?.text).toBe("done");
    expect(counters.length).toBeGreaterThan(0);
    expect(counters.map((c) => c.reads)).toEqual(counters.map(() => 0));
    // The model saw the whole history, and the store has the run's events after it.
    expect(model.requests.at(-1)!.contents!.length).toBeGreaterThan(before);
    const stored = await read(service);
    expect(stored.events).toHaveLength(before + events.length + 1);
  });

  it("a resumable workflow pauses and resumes over the store's list, never building the session's own", async () => {
    const service = await sessionWith(2);
    const ask = new LongRunningFunctionTool({ name: "ask_human", description: "Asks.", execute: () => undefined });
    const askerModel = new ScriptedModel({
      steps: [ScriptedModel.functionCall("ask_human", {}, "c1"), ScriptedModel.text("thanks")],
    });
    const afterModel = new ScriptedModel({ steps: [ScriptedModel.text("finished")] });
    const pipeline = new SequentialAgent({
      name: "pipeline",
      subAgents: [
        new LlmAgent({ name: "asker", model: askerModel, tools: [ask] }),
        new LlmAgent({ name: "after", model: afterModel }),
      ],
    });
    const runner = new Runner({
      app: new App({ name: "app", rootAgent: pipeline, resumability: { isResumable: true } }),
      sessionService: service,
    });
    const counters = countReadsOfEverySession(service);
    const send = (newMessage: Content) => collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage }));
    const first = await send({ role: "user", parts: [{ text: "start" }] });
    expect(first.find((e) => e.nodeInfo?.status === "waiting")).toMatchObject({
      author: "asker",
      nodeInfo: { path: "pipeline/asker@1" },
    });
    const second = await send({
      role: "user",
      parts: [{ functionResponse: { id: "c1", name: "ask_human", response: { answer: "yes" } } }],
    });
    expect(second.filter((e) => e.content).map((e) => [e.author, e.content!.parts![0]!.text])).toEqual([
      ["asker", "thanks"],
      ["after", "finished"],
    ]);
    expect(second.at(-1)).toMatchObject({ author: "pipeline", nodeInfo: { path: "pipeline", status: "completed" } });
    askerModel.assertConsumed();
    afterModel.assertConsumed();
    expect(counters.length).toBeGreaterThan(1);
    expect(counters.map((c) => c.reads)).toEqual(counters.map(() => 0));
  });
});
