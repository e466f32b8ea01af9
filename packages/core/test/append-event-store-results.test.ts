// `storeEvent` may answer with its result, a promise of it, or another library's thenable; the
// base class's `appendEvent` updates the caller's session only once the store's answer is in, a
// store's synchronous throw rejects the append and frees the session's queue, and the write a
// store gets for an event that changes no state is one frozen shared delta.
import { describe, expect, it } from "@jest/globals";
import {
  BaseSessionService,
  createEvent,
  type CreateSessionRequest,
  type DeleteSessionRequest,
  type EventWrite,
  type GetSessionRequest,
  type ListSessionsResponse,
  type Session,
  type StoredEvent,
} from "../src/index.js";

type Answer = "value" | "promise" | "thenable" | "throw";

/** A store whose `storeEvent` answers the way the test asks; it records every write. */
class ScriptedStore extends BaseSessionService {
  answer: Answer = "value";
  readonly writes: EventWrite[] = [];
  /** For "thenable": settles the last write's answer. */
  settle?: () => void;
  private time = 1;

  override async createSession({ appName, userId, sessionId }: CreateSessionRequest): Promise<Session> {
    return { id: sessionId ?? "s1", appName, userId, state: {}, events: [], lastUpdateTime: this.time };
  }

  override async getSession(_request: GetSessionRequest): Promise<Session | undefined> {
    return undefined;
  }

  override async listSessions(): Promise<ListSessionsResponse> {
    return { sessions: [] };
  }

  override async deleteSession(_request: DeleteSessionRequest): Promise<void> {}

  protected override storeEvent(write: EventWrite): StoredEvent | Promise<StoredEvent> {
    this.writes.push(write);
    if (this.answer === "throw") throw new Error("store is down");
    const next = ++this.time;
    if (this.answer === "value") return next;
    if (this.answer === "promise") return Promise.resolve(next);
    let resolve!: (value: StoredEvent) => void;
    this.settle = () => resolve(next);
    // A thenable that is not a native promise (another promise library's, say).
    // biome-ignore lint/suspicious/noThenProperty: a foreign thenable is what this case is about
    return { then: (onFulfilled: (value: StoredEvent) => void) => void (resolve = onFulfilled) } as never;
  }
}

const text = (t: string) =>
  createEvent({ author: "agent", invocationId: "i", content: { role: "model", parts: [{ text: t }] } });

describe("appendEvent with each kind of storeEvent answer", () => {
  it("a plain value, a promise or a foreign thenable: the session is updated once the answer is in", async () => {
    const store = new ScriptedStore();
    const session = await store.createSession({ appName: "app", userId: "u" });
    for (const answer of ["value", "promise"] as const) {
      store.answer = answer;
      const event = text(answer);
      await expect(store.appendEvent({ session, event })).resolves.toBe(event);
      expect(session.events.at(-1)).toBe(event);
    }
    expect(session.lastUpdateTime).toBe(3);

    store.answer = "thenable";
    const event = text("thenable");
    const appending = store.appendEvent({ session, event });
    await new Promise((resolve) => setImmediate(resolve));
    expect(session.events).toHaveLength(2);
    store.settle!();
    await expect(appending).resolves.toBe(event);
    expect(session.events).toHaveLength(3);
    expect(session.lastUpdateTime).toBe(4);
  });

  it("a store's synchronous throw rejects the append, leaves the session as it was and frees the queue", async () => {
    const store = new ScriptedStore();
    const session = await store.createSession({ appName: "app", userId: "u" });
    store.answer = "throw";
    await expect(store.appendEvent({ session, event: text("lost") })).rejects.toThrow("store is down");
    expect(session.events).toHaveLength(0);
    expect(session.lastUpdateTime).toBe(1);
    store.answer = "value";
    const event = text("kept");
    await expect(store.appendEvent({ session, event })).resolves.toBe(event);
    expect(session.events).toEqual([event]);
  });

  it("an event without state changes gets one frozen shared delta; one with changes gets its own split", async () => {
    const store = new ScriptedStore();
    const session = await store.createSession({ appName: "app", userId: "u" });
    await store.appendEvent({ session, event: text("a") });
    await store.appendEvent({ session, event: text("b") });
    const [first, second] = store.writes;
    expect(first!.delta).toBe(second!.delta);
    expect(Object.isFrozen(first!.delta) && Object.isFrozen(first!.delta.session)).toBe(true);
    expect(first!.delta).toEqual({ app: {}, user: {}, session: {} });

    const changing = createEvent({
      author: "agent",
      invocationId: "i",
      actions: { stateDelta: { "app:theme": "dark", "user:name": "Ada", "temp:x": 1, topic: "ai" } },
    });
    await store.appendEvent({ session, event: changing });
    expect(store.writes[2]!.delta).toEqual({ app: { theme: "dark" }, user: { name: "Ada" }, session: { topic: "ai" } });
    expect(session.state).toMatchObject({ "app:theme": "dark", "user:name": "Ada", "temp:x": 1, topic: "ai" });
  });
});
