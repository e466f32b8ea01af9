// Runs on one session are serialized; a client that disconnects aborts its run.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { BaseLlm, LlmAgent, type LlmRequest, type LlmResponse } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { SessionRunQueue } from "../src/index.js";
import { json, post, startTestServer, userMessage, type Json, type TestServer } from "./support/test-server.js";

const slowModel = new ScriptedModel({ delayMs: 300 });

/**
 * A model whose calls wait at a gate: each gated call answers only once the gate opens
 * (`release()`, or by itself once `releaseWhenWaiting` calls wait at the same time), or after
 * `fallbackMs` so a broken server fails the test instead of hanging it. The answer knows
 * whether the gate opened.
 */
class GatedModel extends BaseLlm {
  waiting = 0;
  opened = false;
  private open: () => void = () => {};
  private gate: Promise<void> = Promise.resolve();
  private answers: GatedAnswer[] = [];
  private openAt = Infinity;
  private fallbackMs = 5_000;

  constructor() {
    super({ model: "gated" });
  }

  /** Starts a new round: these answers, a closed gate. */
  script(answers: GatedAnswer[], options: { releaseWhenWaiting?: number; fallbackMs?: number } = {}): void {
    this.answers = [...answers];
    this.opened = false;
    this.openAt = options.releaseWhenWaiting ?? Infinity;
    this.fallbackMs = options.fallbackMs ?? 5_000;
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.opened = true;
    this.open();
  }

  async *generateContentAsync(_request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    const answer = this.answers.shift();
    if (!answer) throw new Error("GatedModel: no answer left");
    if (answer.ungated) return void (yield answer.respond(this.opened));
    this.waiting += 1;
    if (this.waiting >= this.openAt) this.release();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.gate, new Promise((resolve) => (timer = setTimeout(resolve, this.fallbackMs)))]);
    clearTimeout(timer);
    this.waiting -= 1;
    yield answer.respond(this.opened);
  }
}

/** One call's answer; `ungated` calls answer at once. */
interface GatedAnswer {
  respond: (opened: boolean) => LlmResponse;
  ungated?: boolean;
}

const gated = new GatedModel();
let t: TestServer;
const U = "conc_user";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  t = await startTestServer({
    apps: {
      slow: new LlmAgent({ name: "slowpoke", model: slowModel }),
      gated: new LlmAgent({ name: "gatekeeper", model: gated }),
    },
  });
});
afterAll(async () => {
  await t.close();
});

const newSession = async () => (await json(await post(`${t.url}/apps/slow/users/${U}/sessions`))).id as string;
const getSession = async (sid: string) => json(await fetch(`${t.url}/apps/slow/users/${U}/sessions/${sid}`));
const texts = (s: Json) => s.events.map((e: Json) => `${e.author}:${e.content?.parts?.[0]?.text ?? ""}`);

describe("per-session serialization", () => {
  it("two concurrent /run on one session both succeed, one after the other, without interleaving", async () => {
    const sid = await newSession();
    slowModel.push(ScriptedModel.text("first answer"), ScriptedModel.text("second answer"));
    const body = (text: string) => ({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage(text) });
    const [a, b] = await Promise.all([post(`${t.url}/run`, body("one")), post(`${t.url}/run`, body("two"))]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const session = await getSession(sid);
    const order = texts(session);
    // Whichever arrived first ran first; each user message is followed by its own answer.
    expect([
      ["user:one", "slowpoke:first answer", "user:two", "slowpoke:second answer"],
      ["user:two", "slowpoke:first answer", "user:one", "slowpoke:second answer"],
    ]).toContainEqual(order);
    // The second run saw the first one's answer in its model request.
    const second = slowModel.requests[slowModel.requests.length - 1]!;
    expect(JSON.stringify(second.contents)).toContain("first answer");
    expect(t.logger.errors).toEqual([]);
  });

  it("runs on different sessions do not wait for each other", async () => {
    // Both model calls must be in progress at once for the gate to open: runs serialized across
    // sessions would leave the first call alone at the gate until its fallback.
    const newGatedSession = async () =>
      (await json(await post(`${t.url}/apps/gated/users/${U}/sessions`))).id as string;
    const [s1, s2] = [await newGatedSession(), await newGatedSession()];
    const together: GatedAnswer = { respond: (opened) => ScriptedModel.text(opened ? "together" : "alone") };
    gated.script([together, together], { releaseWhenWaiting: 2 });
    const answers = await Promise.all(
      [s1, s2].map(async (sid) =>
        json(
          await post(`${t.url}/run`, { appName: "gated", userId: U, sessionId: sid, newMessage: userMessage("hi") }),
        ),
      ),
    );
    expect(answers.map((events) => events[0]?.content?.parts?.[0]?.text)).toEqual(["together", "together"]);
  });

  it("a queued run whose client leaves never runs", async () => {
    const sid = await newSession();
    slowModel.push(ScriptedModel.text("only answer"));
    const body = (text: string) =>
      JSON.stringify({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage(text) });
    const first = fetch(`${t.url}/run`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: body("kept"),
    });
    await sleep(50);
    const controller = new AbortController();
    const second = fetch(`${t.url}/run`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: body("dropped"),
      signal: controller.signal,
    });
    await sleep(50);
    controller.abort();
    await expect(second).rejects.toThrow();
    expect((await first).status).toBe(200);
    await sleep(100);
    expect(texts(await getSession(sid))).toEqual(["user:kept", "slowpoke:only answer"]);
    expect(slowModel.remaining).toBe(0);
  });
});

describe("SSE streams as events happen", () => {
  it("the first frame arrives while the run is still going", async () => {
    // The second model call waits at a gate the test opens only after reading the first frame:
    // a server that buffered the stream until the run ended could not deliver it before that.
    const sid = (await json(await post(`${t.url}/apps/gated/users/${U}/sessions`))).id as string;
    gated.script(
      [
        { respond: () => ScriptedModel.functionCall("nothing", {}, "c-stream"), ungated: true },
        { respond: (opened) => ScriptedModel.text(opened ? "done" : "gate never opened") },
      ],
      { fallbackMs: 10_000 },
    );
    const res = await post(`${t.url}/run_sse`, {
      appName: "gated",
      userId: U,
      sessionId: sid,
      newMessage: userMessage("go"),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    const firstText = Buffer.from(first.value!).toString();
    expect(firstText).toContain("c-stream");
    expect(gated.opened).toBe(false); // the run cannot have ended: its last model call is still gated
    gated.release();
    let all = firstText;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      all += Buffer.from(value).toString();
    }
    expect(all.match(/^data: /gm)).toHaveLength(3); // call, error response for the unknown tool, answer
    expect(all).toContain('"text":"done"');
  });
});

describe("client disconnect aborts the run", () => {
  for (const route of ["/run", "/run_sse"]) {
    it(`${route}: the model call is cancelled and nothing more is appended`, async () => {
      const sid = await newSession();
      slowModel.push(ScriptedModel.functionCall("nothing", {}, "never-called"));
      const controller = new AbortController();
      const pending = fetch(`${t.url}${route}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage("wait") }),
        signal: controller.signal,
      }).then((res) => res.text());
      await sleep(100); // the model is in its 300 ms delay
      controller.abort();
      await expect(pending).rejects.toThrow();
      await sleep(500); // past the point where the model would have answered
      expect(texts(await getSession(sid))).toEqual(["user:wait"]);
      expect(slowModel.remaining).toBe(0);
      // The session's turn was released: the next run goes through at once.
      slowModel.push(ScriptedModel.text("back"));
      const next = await post(`${t.url}/run`, {
        appName: "slow",
        userId: U,
        sessionId: sid,
        newMessage: userMessage("again"),
      });
      expect(next.status).toBe(200);
      expect(texts(await getSession(sid))).toEqual(["user:wait", "user:again", "slowpoke:back"]);
      expect(t.logger.errors).toEqual([]);
    });
  }
});

describe("disconnect in the middle of a stream", () => {
  it("stops the run after the frames already sent; later model calls never happen", async () => {
    const sid = await newSession();
    slowModel.push(ScriptedModel.functionCall("nothing", {}, "c-mid"), ScriptedModel.text("too late"));
    const controller = new AbortController();
    const res = await fetch(`${t.url}/run_sse`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage("go") }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toContain("c-mid");
    controller.abort();
    await sleep(600);
    const authors = (await getSession(sid)).events.map((e: Json) => e.author);
    // Message and call, plus the tool's error response when the server got that far before
    // noticing the disconnect; never the second model answer.
    expect([
      ["user", "slowpoke"],
      ["user", "slowpoke", "slowpoke"],
    ]).toContainEqual(authors);
    expect(texts(await getSession(sid)).join()).not.toContain("too late");
    expect(t.logger.errors).toEqual([]);
  });
});

describe("SessionRunQueue", () => {
  it("grants in arrival order per key and lets aborted waiters leave", async () => {
    const queue = new SessionRunQueue();
    const order: string[] = [];
    const releaseA = await queue.acquire("k");
    const b = queue.acquire("k").then((release) => {
      order.push("b");
      return release;
    });
    const controller = new AbortController();
    const c = queue.acquire("k", controller.signal);
    const d = queue.acquire("k").then((release) => {
      order.push("d");
      return release;
    });
    const other = await queue.acquire("other"); // another key is free
    other();
    controller.abort();
    await expect(c).rejects.toMatchObject({ code: "RUN_ABORTED" });
    releaseA();
    (await b)();
    (await d)();
    expect(order).toEqual(["b", "d"]);
    expect(queue.size).toBe(0);
  });
});
