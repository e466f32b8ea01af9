// A model or plugin that declares `readsContentsOnly` gets the history array the requests of a
// session share, not a copy; callbacks, other plugins and other models still get an array of
// their own. Each session starts with MEMO_FROM_EVENTS seeded events, so every request goes
// through the memo.
import { describe, expect, it } from "@jest/globals";
import {
  BaseLlm,
  BasePlugin,
  createEvent,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  Runner,
  type CallbackContext,
  type Content,
  type LlmRequest,
  type LlmResponse,
} from "../../src/index.js";
import { getContents, isLentHistory } from "../../src/internal.js";
import { MEMO_FROM_EVENTS } from "../../src/flows/request-builder.js";
import { ContentsProbeModel } from "../../src/testing/index.js";
import type { Session } from "../../src/sessions/session.js";

/** Calls `lookup` on odd calls (a user turn), answers text on even ones; records what each call saw. */
class RecordingModel extends BaseLlm {
  readonly seen: string[] = [];
  readonly arrays: Content[][] = [];

  constructor(
    private readonly readOnly: boolean,
    private readonly edit?: (contents: Content[]) => void,
  ) {
    super({ model: "recording" });
  }

  override get readsContentsOnly(): boolean {
    return this.readOnly;
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    this.seen.push(JSON.stringify(request.contents));
    this.arrays.push(request.contents);
    this.edit?.(request.contents);
    const n = this.seen.length;
    yield n % 2 === 0
      ? { content: { role: "model", parts: [{ text: `answer ${n}` }] } }
      : { content: { role: "model", parts: [{ functionCall: { name: "lookup", args: { n } } }] } };
  }
}

/** MEMO_FROM_EVENTS text events (user and model in turn): the session is past the memo's floor. */
async function seed(sessionService: InMemorySessionService, session: Session): Promise<void> {
  for (let i = 0; i < MEMO_FROM_EVENTS; i++) {
    const author = i % 2 === 0 ? "user" : "root";
    const content = { role: i % 2 === 0 ? "user" : "model", parts: [{ text: `seed ${i}` }] };
    await sessionService.appendEvent({ session, event: createEvent({ invocationId: `seed-${i}`, author, content }) });
  }
}

interface Setup {
  model: RecordingModel;
  beforeModel?: (args: { context: CallbackContext; request: LlmRequest }) => undefined;
  plugins?: BasePlugin[];
}

/** Runs `turns` invocations on one session; returns the stored events' contents as JSON. */
async function converse({ model, beforeModel, plugins }: Setup, turns: number): Promise<string> {
  const lookup = new FunctionTool({ name: "lookup", description: "x", execute: () => ({ ok: true }) });
  const agent = new LlmAgent({ name: "root", model, tools: [lookup], beforeModelCallback: beforeModel });
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName: "app", agent, sessionService, plugins });
  const session = await sessionService.createSession({ appName: "app", userId: "u" });
  await seed(sessionService, session);
  for (let i = 0; i < turns; i++) {
    const newMessage = { role: "user", parts: [{ text: `question ${i}` }] };
    for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage })) void _;
  }
  const stored = await sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id });
  return JSON.stringify(stored!.events.map((e) => e.content));
}

/** Ids and timestamps differ between runs; the contents the model sees do not. */
function withoutIds(json: string): string {
  return json.replace(/"id":"[^"]*"/g, '"id":"*"');
}

describe("lent request contents", () => {
  it("a read-only model gets the shared array, with the same contents a copying model gets", async () => {
    const lending = new RecordingModel(true);
    const copying = new RecordingModel(false);
    const lentHistory = await converse({ model: lending }, 6);
    const copiedHistory = await converse({ model: copying }, 6);

    expect(lending.seen).toHaveLength(12);
    expect(lending.seen.map(withoutIds)).toEqual(copying.seen.map(withoutIds));
    expect(withoutIds(lentHistory)).toBe(withoutIds(copiedHistory));
    // Lent: every call sees the one memo array; copies are all distinct.
    expect(new Set(lending.arrays).size).toBe(1);
    expect(new Set(copying.arrays).size).toBe(12);
    // What each call saw is the full build of the history at that point.
    const lastSeen = JSON.parse(copying.seen.at(-1)!) as Content[];
    expect(lastSeen.length).toBe(MEMO_FROM_EVENTS + 6 * 4 - 1);
  });

  it("the shared array matches a full build of the stored history", async () => {
    const lending = new RecordingModel(true);
    const lookup = new FunctionTool({ name: "lookup", description: "x", execute: () => ({ ok: true }) });
    const agent = new LlmAgent({ name: "root", model: lending, tools: [lookup] });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: "app", agent, sessionService });
    const session = await sessionService.createSession({ appName: "app", userId: "u" });
    await seed(sessionService, session);
    for (let i = 0; i < 4; i++) {
      const newMessage = { role: "user", parts: [{ text: `q${i}` }] };
      for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage })) void _;
      const stored = await sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id });
      // The last call saw every stored event but its own final answer.
      const full = getContents(undefined, stored!.events.slice(0, -1), "root");
      expect(lending.seen.at(-1)).toBe(JSON.stringify(full));
    }
  });

  it("a before-model callback that pushes, splices and replaces parts changes only its own request", async () => {
    const reference = new RecordingModel(true);
    const referenceHistory = await converse({ model: reference }, 5);

    const edited = new RecordingModel(true);
    let call = 0;
    const beforeModel = ({ request }: { context: CallbackContext; request: LlmRequest }): undefined => {
      call += 1;
      if (call === 3) request.contents.push({ role: "user", parts: [{ text: "pushed" }] });
      if (call === 5) request.contents.splice(0, 2);
      if (call === 7) {
        const first = request.contents[0]!;
        request.contents[0] = { ...first, parts: [{ text: "replaced" }] };
      }
      if (call === 8) expect(() => (request.contents[0]!.parts as unknown[]).push({ text: "x" })).toThrow(TypeError);
      return undefined;
    };
    const history = await converse({ model: edited, beforeModel }, 5);

    const expected = reference.seen.map((json, i) => {
      const contents = JSON.parse(json) as Content[];
      if (i === 2) contents.push({ role: "user", parts: [{ text: "pushed" }] });
      if (i === 4) contents.splice(0, 2);
      if (i === 6) contents[0] = { ...contents[0]!, parts: [{ text: "replaced" }] };
      return withoutIds(JSON.stringify(contents));
    });
    expect(edited.seen.map(withoutIds)).toEqual(expected);
    // Edits never reach the stored session.
    expect(withoutIds(history)).toBe(withoutIds(referenceHistory));
  });

  it("a concurrent run on the same session does not change the array a model is still reading", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const waiting = new Promise<void>((resolve) => (entered = resolve));
    const views: { first: string; later?: string; length: number }[] = [];
    class SlowModel extends BaseLlm {
      calls = 0;
      override get readsContentsOnly(): boolean {
        return true;
      }
      async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
        this.calls += 1;
        const view: (typeof views)[number] = {
          first: JSON.stringify(request.contents),
          length: request.contents.length,
        };
        views.push(view);
        if (this.calls === 3) {
          // The third call (run A's) waits while run B reads and extends the same memo.
          entered();
          await gate;
        }
        view.later = JSON.stringify(request.contents);
        yield { content: { role: "model", parts: [{ text: `answer ${this.calls}` }] } };
      }
    }
    const model = new SlowModel({ model: "slow" });
    const agent = new LlmAgent({ name: "root", model });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: "app", agent, sessionService });
    const session = await sessionService.createSession({ appName: "app", userId: "u" });
    await seed(sessionService, session);
    const run = async (text: string): Promise<void> => {
      const newMessage = { role: "user", parts: [{ text }] };
      for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage })) void _;
    };
    await run("one");
    await run("two");
    const runA = run("three A").catch((error: unknown) => error); // may end stale: B wrote meanwhile
    await waiting;
    await run("three B");
    release();
    await runA;

    expect(views).toHaveLength(4);
    const a = views[2]!;
    expect(a.later).toBe(a.first);
    expect(JSON.parse(a.first)).toHaveLength(MEMO_FROM_EVENTS + 5);
    // Run B saw A's message and its own, from the same memo.
    expect((JSON.parse(views[3]!.first) as Content[]).slice(MEMO_FROM_EVENTS).map((c) => c.parts?.[0]?.text)).toEqual([
      "one",
      "answer 1",
      "two",
      "answer 2",
      "three A",
      "three B",
    ]);
  });

  it("a plugin's before-model edits and a model that edits its request do not leak into later requests", async () => {
    const reference = new RecordingModel(false);
    await converse({ model: reference }, 4);

    class EditingPlugin extends BasePlugin {
      constructor() {
        super("editing");
      }
      override beforeModelCallback({ request }: { context: CallbackContext; request: LlmRequest }): undefined {
        request.contents.push({ role: "user", parts: [{ text: "from plugin" }] });
        return undefined;
      }
    }
    const pluginEdited = new RecordingModel(true);
    await converse({ model: pluginEdited, plugins: [new EditingPlugin()] }, 4);
    expect(pluginEdited.seen.map(withoutIds)).toEqual(
      reference.seen.map((json) =>
        withoutIds(
          JSON.stringify([...(JSON.parse(json) as Content[]), { role: "user", parts: [{ text: "from plugin" }] }]),
        ),
      ),
    );

    // Not read-only: it may edit (here it empties the array) and gets a copy each call.
    const editing = new RecordingModel(false, (contents) => contents.splice(0));
    await converse({ model: editing }, 4);
    expect(editing.seen.map(withoutIds)).toEqual(reference.seen.map(withoutIds));
  });

  it("plugins that declare readsContentsOnly read the shared array; any other callback still gets a copy", async () => {
    /** Records the array its before-model hook was handed, and whether it was the lent history. */
    class ObservingPlugin extends BasePlugin {
      readonly arrays: Content[][] = [];
      readonly lent: boolean[] = [];
      constructor(
        name: string,
        private readonly readOnly: boolean,
      ) {
        super(name);
      }
      override get readsContentsOnly(): boolean {
        return this.readOnly;
      }
      override beforeModelCallback({ request }: { context: CallbackContext; request: LlmRequest }): undefined {
        this.arrays.push(request.contents);
        this.lent.push(isLentHistory(request.contents));
        return undefined;
      }
    }
    const reference = new RecordingModel(true);
    const referenceHistory = await converse({ model: reference }, 4);

    // Only read-only plugins: they and the read-only model all see the one memo array.
    const reader = new ObservingPlugin("reader", true);
    const model = new RecordingModel(true);
    const history = await converse({ model, plugins: [reader] }, 4);
    expect(reader.lent).toEqual(Array.from({ length: 8 }, () => true));
    expect(new Set(reader.arrays).size).toBe(1);
    expect(reader.arrays[0]).toBe(model.arrays[0]);
    expect(model.seen.map(withoutIds)).toEqual(reference.seen.map(withoutIds));
    expect(withoutIds(history)).toBe(withoutIds(referenceHistory));

    // A plugin that does not declare it, beside a reader: both get the request's own copy.
    const secondReader = new ObservingPlugin("reader", true);
    const other = new ObservingPlugin("other", false);
    await converse({ model: new RecordingModel(true), plugins: [secondReader, other] }, 2);
    expect(secondReader.lent).toEqual([false, false, false, false]);
    expect(other.arrays).toEqual(secondReader.arrays);
    expect(new Set(other.arrays).size).toBe(4);

    // A reader, then the agent's own callback that edits: the reader saw the shared array, the
    // callback's edit lands in a copy, and the history is untouched.
    const thirdReader = new ObservingPlugin("reader", true);
    const edited = new RecordingModel(true);
    const beforeModel = ({ request }: { context: CallbackContext; request: LlmRequest }): undefined => {
      expect(isLentHistory(request.contents)).toBe(false);
      request.contents.splice(0, 1);
      return undefined;
    };
    const editedHistory = await converse({ model: edited, beforeModel, plugins: [thirdReader] }, 3);
    expect(thirdReader.lent).toEqual(Array.from({ length: 6 }, () => true));
    expect(edited.seen.map(withoutIds)).toEqual(
      reference.seen.slice(0, 6).map((json) => withoutIds(JSON.stringify((JSON.parse(json) as Content[]).slice(1)))),
    );
    expect(withoutIds(editedHistory)).toBe(withoutIds(await converse({ model: new RecordingModel(true) }, 3)));
  });

  it("the history goes back to the session when a read-only plugin replaces it, answers, or throws", async () => {
    /** Records the array it was handed; then replaces it, answers in the model's place, or throws. */
    class ActingPlugin extends BasePlugin {
      readonly arrays: Content[][] = [];
      act: "replace" | "answer" | "throw" | "none" = "none";
      override get readsContentsOnly(): boolean {
        return true;
      }
      override beforeModelCallback({
        request,
      }: {
        context: CallbackContext;
        request: LlmRequest;
      }): LlmResponse | undefined {
        this.arrays.push(request.contents);
        if (this.act === "replace") request.contents = request.contents.slice(-2);
        if (this.act === "throw") throw new Error("plugin failed");
        if (this.act === "answer") return { content: { role: "model", parts: [{ text: "cached answer" }] } };
        return undefined;
      }
    }
    for (const act of ["replace", "answer", "throw"] as const) {
      const plugin = new ActingPlugin("acting");
      const model = new ContentsProbeModel();
      const agent = new LlmAgent({ name: "root", model });
      const sessionService = new InMemorySessionService();
      const runner = new Runner({ appName: "app", agent, sessionService, plugins: [plugin] });
      const session = await sessionService.createSession({ appName: "app", userId: "u" });
      await seed(sessionService, session);
      const turn = async (i: number) => {
        const newMessage = { role: "user", parts: [{ text: `question ${i}` }] };
        try {
          for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage })) void _;
        } catch (error) {
          if (act !== "throw") throw error;
        }
      };
      await turn(0);
      plugin.act = act;
      await turn(1);
      await turn(2);
      plugin.act = "none";
      await turn(3);
      // Every call was handed the session's one history array: the memo kept lending (and
      // extending) it, so the acting calls gave it back.
      expect({ act, arrays: new Set(plugin.arrays).size, lent: isLentHistory(plugin.arrays[0]!) }).toEqual({
        act,
        arrays: 1,
        lent: false,
      });
      if (act === "replace") expect(model.requests[1]!.contents).toHaveLength(2);
      await runner.close();
    }
  });
});
