// Requests are built from what the session store kept: a store that hands back its frozen copy of
// an appended event (the in-memory store does) lets the contents memo share that copy instead of
// making one more from the caller's mutable event, and what the caller does to its event object
// afterwards never reaches a later request.
import { describe, expect, it } from "@jest/globals";
import {
  BaseLlm,
  BaseSessionService,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  Runner,
  type Content,
  type CreateSessionRequest,
  type DeleteSessionRequest,
  type Event,
  type EventWrite,
  type GetSessionRequest,
  type ListSessionsResponse,
  type LlmRequest,
  type LlmResponse,
  type Session,
} from "../../src/index.js";

/** Text plus a `lookup` call on a user turn, text after the tool's answer; keeps each request's contents. */
class KeepingModel extends BaseLlm {
  readonly contents: Content[][] = [];

  constructor(private readonly readOnly: boolean) {
    super({ model: "keeping" });
  }

  override get readsContentsOnly(): boolean {
    return this.readOnly;
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    this.contents.push([...request.contents]);
    const last = request.contents.at(-1);
    yield last?.parts?.some((p) => p.functionResponse)
      ? { content: { role: "model", parts: [{ text: "done" }] } }
      : {
          content: {
            role: "model",
            parts: [{ text: "looking it up" }, { functionCall: { name: "lookup", args: { q: "x" } } }],
          },
        };
  }
}

function setup(readOnly: boolean, sessionService: BaseSessionService = new InMemorySessionService()) {
  const model = new KeepingModel(readOnly);
  const lookup = new FunctionTool({ name: "lookup", description: "x", execute: () => ({ value: 42 }) });
  const runner = new Runner({
    appName: "app",
    agent: new LlmAgent({ name: "root", model, tools: [lookup] }),
    sessionService,
  });
  return { model, runner, sessionService };
}

const ask = { role: "user", parts: [{ text: "q" }] };

describe("requests share the store's snapshots", () => {
  for (const readOnly of [true, false]) {
    it(`a later request holds the stored events' own content objects, no copies (readsContentsOnly: ${readOnly})`, async () => {
      const { model, runner, sessionService } = setup(readOnly);
      const session = await sessionService.createSession({ appName: "app", userId: "u" });
      for (let turn = 0; turn < 3; turn++) {
        for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: ask })) void _;
      }
      const stored = await sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id });
      const storedContents = stored!.events.map((e) => e.content!);
      const last = model.contents.at(-1)!;
      // The last request saw every stored event but the final answer, as the very objects the store keeps.
      expect(last).toHaveLength(storedContents.length - 1);
      for (const [i, content] of last.entries()) expect(content).toBe(storedContents[i]);
      expect(Object.isFrozen(last[0]) && Object.isFrozen(last[0]!.parts![0])).toBe(true);
    });
  }

  it("a caller editing its yielded event in place does not change what the next request sees", async () => {
    const { model, runner, sessionService } = setup(true);
    const session = await sessionService.createSession({ appName: "app", userId: "u" });
    for await (const event of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: ask })) {
      // The yielded events are the caller's own objects (mutable), stored before they were yielded.
      const text = event.content?.parts?.find((p) => p.text !== undefined);
      if (text) text.text = "edited by the caller";
      event.content?.parts?.push({ text: "added by the caller" });
    }
    expect(model.contents).toHaveLength(2);
    const second = JSON.stringify(model.contents[1]);
    expect(second).toContain("looking it up");
    expect(second).not.toContain("by the caller");
    // ...and it is what the store kept.
    const stored = await sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id });
    expect(second).toBe(JSON.stringify(stored!.events.slice(0, 3).map((e) => e.content)));
  });

  it("a store that returns only the time (no snapshot): requests get frozen copies equal to what was stored", async () => {
    const { model, runner, sessionService } = setup(true, new TimeOnlyStore());
    const session = await sessionService.createSession({ appName: "app", userId: "u" });
    for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: ask })) void _;
    expect(model.contents).toHaveLength(2);
    const [, second] = model.contents;
    const stored = await sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id });
    expect(JSON.stringify(second)).toBe(JSON.stringify(stored!.events.slice(0, 3).map((e) => e.content)));
    // Copies, frozen: not the store's objects (it hands none back) and not the caller's.
    second!.forEach((content, i) => {
      expect(content).not.toBe(stored!.events[i]!.content);
      expect(Object.isFrozen(content)).toBe(true);
    });
  });
});

/** An in-memory store that keeps JSON text and answers `storeEvent` with the time only. */
class TimeOnlyStore extends BaseSessionService {
  private readonly sessions = new Map<string, { session: Omit<Session, "events">; events: string[] }>();

  override async createSession({ appName, userId, sessionId }: CreateSessionRequest): Promise<Session> {
    const id = sessionId ?? `s${this.sessions.size + 1}`;
    const session = { id, appName, userId, state: {}, lastUpdateTime: 1 };
    this.sessions.set(id, { session, events: [] });
    return { ...session, events: [] };
  }

  override async getSession({ sessionId }: GetSessionRequest): Promise<Session | undefined> {
    const stored = this.sessions.get(sessionId);
    if (!stored) return undefined;
    return { ...stored.session, events: stored.events.map((e) => JSON.parse(e) as Event) };
  }

  override async listSessions(): Promise<ListSessionsResponse> {
    return { sessions: [] };
  }

  override async deleteSession({ sessionId }: DeleteSessionRequest): Promise<void> {
    this.sessions.delete(sessionId);
  }

  protected override async storeEvent(write: EventWrite): Promise<number> {
    const stored = this.sessions.get(write.sessionId)!;
    stored.events.push(JSON.stringify(write.event));
    stored.session.lastUpdateTime = write.seenLastUpdateTime + 1;
    return stored.session.lastUpdateTime;
  }
}
