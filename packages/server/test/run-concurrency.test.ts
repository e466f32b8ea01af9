// Runs on one session are serialized; a client that disconnects aborts its run.
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { BaseLlm, LlmAgent, type LlmRequest, type LlmResponse } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { createStaticAgentLoader, SessionRunQueue, type AgentLoader } from "../src/index.js";
import { json, post, startTestServer, userMessage, type Json, type TestServer } from "./support/test-server.js";

// No timers: every wait below is for something the server did (a model call, a request that
// reached the session's queue, a closed connection). A broken server fails by the test timeout.
const slowModel = new ScriptedModel();
const midModel = new ScriptedModel();

/** A model step that answers once `until` resolves. */
const answerAfter = (until: () => Promise<unknown>, response: LlmResponse) => async () => {
  await until();
  return response;
};

/** A model step that never answers: it ends only when the run's signal aborts it, and reports its start. */
function blockUntilAborted(started: () => void) {
  return (request: LlmRequest) =>
    new Promise<LlmResponse>((_, reject) => {
      const signal = request.config.abortSignal;
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      started();
    });
}

function deferred(): Promise<void> & { resolve: () => void } {
  let resolve!: () => void;
  return Object.assign(new Promise<void>((r) => (resolve = r)), { resolve: () => resolve() });
}

/** One event-loop turn: the promise reactions (no I/O) a server step starts have all run. */
const settle = () => new Promise((r) => setImmediate(r));

/**
 * Run requests reach the session's queue right after their app is loaded: the loader counts the
 * loads, `loaded(n)` resolves once n happened and what followed them without I/O ran.
 */
let loads = 0;
const loadWaiters: { n: number; resolve: () => void }[] = [];
function countingLoader(inner: AgentLoader): AgentLoader {
  return {
    listApps: () => inner.listApps(),
    close: () => inner.close(),
    loadApp: (appName) => {
      loads += 1;
      for (const w of loadWaiters.filter((w) => w.n <= loads)) w.resolve();
      return inner.loadApp(appName);
    },
  };
}
async function loaded(n: number): Promise<void> {
  if (loads < n) await new Promise<void>((resolve) => loadWaiters.push({ n, resolve }));
  await settle();
}

/**
 * A model whose calls wait at a gate: each gated call answers only once the gate opens
 * (`release()`, or by itself once `releaseWhenWaiting` calls wait at the same time). The
 * answer knows whether the gate opened.
 */
class GatedModel extends BaseLlm {
  waiting = 0;
  opened = false;
  private open: () => void = () => {};
  private gate: Promise<void> = Promise.resolve();
  private answers: GatedAnswer[] = [];
  private openAt = Infinity;

  constructor() {
    super({ model: "gated" });
  }

  /** Starts a new round: these answers, a closed gate. */
  script(answers: GatedAnswer[], options: { releaseWhenWaiting?: number } = {}): void {
    this.answers = [...answers];
    this.opened = false;
    this.openAt = options.releaseWhenWaiting ?? Infinity;
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
    await this.gate;
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

beforeAll(async () => {
  t = await startTestServer({
    loader: countingLoader(
      createStaticAgentLoader({
        apps: {
          slow: new LlmAgent({ name: "slowpoke", model: slowModel }),
          mid: new LlmAgent({ name: "slowpoke", model: midModel }),
          gated: new LlmAgent({ name: "gatekeeper", model: gated }),
        },
      }),
    ),
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
    // The first model call answers only once both requests reached the server: the second one
    // is then waiting for the session (or, on a server that does not serialize, running).
    const bothArrived = loads + 2;
    slowModel.push(
      answerAfter(() => loaded(bothArrived), ScriptedModel.text("first answer")),
      ScriptedModel.text("second answer"),
    );
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
    const release = deferred();
    const firstCalled = deferred();
    slowModel.push(async () => {
      firstCalled.resolve();
      await release;
      return ScriptedModel.text("only answer");
    });
    const body = (text: string) =>
      JSON.stringify({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage(text) });
    const first = fetch(`${t.url}/run`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: body("kept"),
    });
    await firstCalled; // the first run holds the session
    // The second request goes to the same app through a listener of our own, whose connections
    // we can see close on the server side.
    const side = createServer(t.server.app);
    let serverSockets = 0;
    side.on("connection", (socket) => {
      serverSockets += 1;
      socket.once("close", () => (serverSockets -= 1));
    });
    await new Promise<void>((resolve) => side.listen(0, "127.0.0.1", resolve));
    try {
      const queued = loaded(loads + 1);
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`http://127.0.0.1:${(side.address() as AddressInfo).port}/run`, {
          method: "POST",
          agent: false,
          headers: { "Content-Type": "application/json" },
        });
        req.on("error", () => undefined); // "socket hang up": we hung up
        req.on("response", () => reject(new Error("the queued run answered")));
        req.on("close", () => resolve());
        req.end(body("dropped"));
        void queued.then(() => req.destroy()); // leave while waiting for the session
      });
      // The server noticed the disconnect once its end of the connection closed.
      while (serverSockets > 0) await settle();
      await settle();
    } finally {
      side.close();
    }
    release.resolve();
    expect((await first).status).toBe(200);
    expect(texts(await getSession(sid))).toEqual(["user:kept", "slowpoke:only answer"]);
    expect(slowModel.remaining).toBe(0);
  });
});

describe("SSE streams as events happen", () => {
  it("the first frame arrives while the run is still going", async () => {
    // The second model call waits at a gate the test opens only after reading the first frame:
    // a server that buffered the stream until the run ended could not deliver it before that.
    const sid = (await json(await post(`${t.url}/apps/gated/users/${U}/sessions`))).id as string;
    gated.script([
      { respond: () => ScriptedModel.functionCall("nothing", {}, "c-stream"), ungated: true },
      { respond: (opened) => ScriptedModel.text(opened ? "done" : "gate never opened") },
    ]);
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
      const called = deferred();
      slowModel.push(blockUntilAborted(called.resolve));
      const controller = new AbortController();
      const pending = fetch(`${t.url}${route}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ appName: "slow", userId: U, sessionId: sid, newMessage: userMessage("wait") }),
        signal: controller.signal,
      }).then((res) => res.text());
      await called; // the model call is in progress; it would never answer
      controller.abort();
      await expect(pending).rejects.toThrow();
      expect(slowModel.remaining).toBe(0);
      // The next run waits for the session's turn: it goes through only because the aborted run
      // ended (its model call cancelled), and nothing was appended in between.
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
    const sid = (await json(await post(`${t.url}/apps/mid/users/${U}/sessions`))).id as string;
    // The second model call (if the server gets that far) would never answer: only the abort ends it.
    midModel.push(
      ScriptedModel.functionCall("nothing", {}, "c-mid"),
      blockUntilAborted(() => undefined),
    );
    const controller = new AbortController();
    const res = await fetch(`${t.url}/run_sse`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ appName: "mid", userId: U, sessionId: sid, newMessage: userMessage("go") }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toContain("c-mid");
    controller.abort();
    // A state patch takes the session's turn like a run: it goes through once the aborted run ended.
    const patched = await fetch(`${t.url}/apps/mid/users/${U}/sessions/${sid}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ stateDelta: { after: true } }),
    });
    expect(patched.status).toBe(200);
    const events = (await json(await fetch(`${t.url}/apps/mid/users/${U}/sessions/${sid}`))).events as Json[];
    const authors = events.slice(0, -1).map((e: Json) => e.author); // before the patch's event
    // Message and call, plus the tool's error response when the server got that far before
    // noticing the disconnect; never a second model answer.
    expect([
      ["user", "slowpoke"],
      ["user", "slowpoke", "slowpoke"],
    ]).toContainEqual(authors);
    expect(events.at(-1)?.actions?.stateDelta).toEqual({ after: true });
    expect(midModel.requests.length).toBeLessThanOrEqual(2);
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
