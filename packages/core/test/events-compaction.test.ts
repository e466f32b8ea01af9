import { describe, expect, it } from "@jest/globals";
import {
  App,
  ConfigurationError,
  InMemoryRunner,
  LlmAgent,
  LlmEventSummarizer,
  createEvent,
  type Event,
  type LlmRequest,
} from "../src/index.js";
import { selectCompactionWindow } from "../src/internal.js";
import { ScriptedModel } from "../src/testing/index.js";

const textOf = (e: Event) =>
  e.content?.parts?.map((p) => p.text ?? p.functionCall?.name ?? p.functionResponse?.name).join("") ?? "";

/** Events of invocations i0, i1, … with distinct timestamps 1, 2, 3, … */
function history(spec: string[][]): Event[] {
  let t = 0;
  return spec.flatMap((texts, i) =>
    texts.map((text) =>
      createEvent({
        author: text.startsWith("q") ? "user" : "agent",
        invocationId: `i${i}`,
        timestamp: ++t,
        content: text.startsWith("resp:")
          ? { role: "user", parts: [{ functionResponse: { id: text, name: "tool", response: {} } }] }
          : text.startsWith("call:")
            ? { role: "model", parts: [{ functionCall: { id: text.replace("call", "resp"), name: "tool", args: {} } }] }
            : { role: text.startsWith("q") ? "user" : "model", parts: [{ text }] },
      }),
    ),
  );
}

function summary(of: Event[], text: string, timestamp: number): Event {
  return createEvent({
    author: "user",
    timestamp,
    actions: {
      compaction: {
        startTimestamp: of[0]!.timestamp,
        endTimestamp: of.at(-1)!.timestamp,
        compactedContent: { role: "model", parts: [{ text }] },
      },
    },
  });
}

describe("selectCompactionWindow, tail retention", () => {
  it("waits for compactionInterval invocations, then keeps the last eventRetentionSize events out", () => {
    const events = history([
      ["q1", "a1"],
      ["q2", "a2"],
      ["q3", "a3"],
    ]);
    expect(selectCompactionWindow(events.slice(0, 2), { compactionInterval: 2, eventRetentionSize: 1 })).toEqual([]);
    expect(selectCompactionWindow(events, { compactionInterval: 3, eventRetentionSize: 2 }).map(textOf)).toEqual([
      "q1",
      "a1",
      "q2",
      "a2",
    ]);
    expect(selectCompactionWindow(events, { compactionInterval: 3, eventRetentionSize: 0 }).map(textOf)).toEqual([
      "q1",
      "a1",
      "q2",
      "a2",
      "q3",
      "a3",
    ]);
  });

  it("folds the previous summary and the tail it kept into the next window", () => {
    const first = history([
      ["q1", "a1"],
      ["q2", "a2"],
    ]);
    const s1 = summary(first.slice(0, 3), "S1", 4.5); // kept a2 verbatim
    const more = history([[], [], ["q3", "a3"], ["q4", "a4"]]).map((e) => ({ ...e, timestamp: e.timestamp + 10 }));
    const events = [...first, s1, ...more];
    const window = selectCompactionWindow(events, { compactionInterval: 2, eventRetentionSize: 1 });
    expect(window.map((e) => (e.actions.compaction ? "S1" : textOf(e)))).toEqual(["S1", "a2", "q3", "a3", "q4"]);
  });

  it("never keeps a function response whose call is summarized, nor splits a timestamp", () => {
    const events = history([
      ["q1", "call:1", "resp:1", "a1"],
      ["q2", "a2"],
    ]);
    // Retaining 3 would start the tail at resp:1 — the cut moves before its call.
    expect(
      selectCompactionWindow(events.slice(0, 4), { compactionInterval: 1, eventRetentionSize: 2 }).map(textOf),
    ).toEqual(["q1"]);
    const tied = history([
      ["q1", "a1"],
      ["q2", "a2"],
    ]);
    tied[2]!.timestamp = tied[1]!.timestamp;
    expect(selectCompactionWindow(tied, { compactionInterval: 2, eventRetentionSize: 2 }).map(textOf)).toEqual(["q1"]);
  });

  it("validates the configuration", () => {
    const rootAgent = new LlmAgent({ name: "a", model: new ScriptedModel() });
    expect(
      () =>
        new App({ name: "x", rootAgent, eventsCompactionConfig: { compactionInterval: 1, eventRetentionSize: -1 } }),
    ).toThrow(/eventRetentionSize/);
    expect(
      () =>
        new App({
          name: "x",
          rootAgent,
          eventsCompactionConfig: { compactionInterval: 1, eventRetentionSize: 1, overlapSize: 2 },
        }),
    ).toThrow(/not both/);
    expect(() => new LlmEventSummarizer({} as never)).toThrow(ConfigurationError);
  });
});

describe("LlmEventSummarizer", () => {
  it("asks the model with a transcript and covers the whole range, earlier summary included", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("User asked about Paris; tool said sunny.")] });
    const events = history([["q1", "call:1", "resp:1", "a1"]]);
    const earlier = summary([createEvent({ author: "user", timestamp: 0.5 })], "Earlier: user is Ada.", 0.9);
    const event = (await new LlmEventSummarizer({ model }).maybeSummarizeEvents({ events: [earlier, ...events] }))!;
    const prompt = model.requests[0]!.contents[0]!.parts![0]!.text!;
    expect(prompt).toContain("[earlier summary] Earlier: user is Ada.");
    expect(prompt).toContain("user: q1");
    expect(prompt).toContain("agent: called tool({})");
    expect(prompt).toContain("tool returned {}");
    expect(String(model.requests[0]!.config.systemInstruction)).toMatch(/compact the history/);
    expect(event.author).toBe("user");
    expect(event.actions.compaction).toEqual({
      startTimestamp: 0.5,
      endTimestamp: events.at(-1)!.timestamp,
      compactedContent: { role: "model", parts: [{ text: "User asked about Paris; tool said sunny." }] },
    });
  });

  it("returns nothing for an empty answer and fails on a model error", async () => {
    const events = history([["q1", "a1"]]);
    expect(
      await new LlmEventSummarizer({
        model: new ScriptedModel({ steps: [ScriptedModel.text("  ")] }),
      }).maybeSummarizeEvents({ events }),
    ).toBeUndefined();
    const failing = new LlmEventSummarizer({
      model: new ScriptedModel({ steps: [{ errorCode: "RATE_LIMIT", errorMessage: "slow down" }] }),
    });
    await expect(failing.maybeSummarizeEvents({ events })).rejects.toThrow(/RATE_LIMIT slow down/);
  });
});

describe("tail-retention compaction in a runner", () => {
  it("keeps model requests bounded: one summary, the retained tail, the new message", async () => {
    const requests: LlmRequest[] = [];
    let turn = 0;
    const agentModel = new ScriptedModel({
      steps: Array.from({ length: 12 }, () => (request: LlmRequest) => {
        requests.push(structuredClone({ ...request, toolsDict: {} }));
        return ScriptedModel.text(`a${++turn}`);
      }),
    });
    let summaries = 0;
    const summarizerModel = new ScriptedModel({
      steps: Array.from({ length: 12 }, () => () => ScriptedModel.text(`S${++summaries}`)),
    });
    const app = new App({
      name: "tail",
      rootAgent: new LlmAgent({ name: "root", model: agentModel }),
      eventsCompactionConfig: {
        compactionInterval: 2,
        eventRetentionSize: 2,
        summarizer: new LlmEventSummarizer({ model: summarizerModel }),
      },
    });
    const runner = new InMemoryRunner({ app });
    const session = await runner.sessionService.createSession({ appName: "tail", userId: "u" });
    for (let i = 1; i <= 12; i++)
      for await (const _ of runner.runAsync({
        userId: "u",
        sessionId: session.id,
        newMessage: { role: "user", parts: [{ text: `q${i}` }] },
      }));
    const texts = requests.map((r) => r.contents.map((c) => c.parts?.map((p) => p.text).join("")));
    expect(texts[11]).toEqual(["S5", "q10", "a10", "q11", "a11", "q12"]);
    expect(summaries).toBe(6);
    expect(Math.max(...texts.map((t) => t.length))).toBeLessThanOrEqual(6);
    // The summarizer saw the previous summary each time after the first.
    const prompts = summarizerModel.requests.map((r) => r.contents[0]!.parts![0]!.text!);
    expect(prompts[1]).toContain("[earlier summary] S1");
    const stored = await runner.sessionService.getSession({ appName: "tail", userId: "u", sessionId: session.id });
    expect(stored!.events.filter((e) => e.content?.role === "user" && !e.actions.compaction)).toHaveLength(12);
    await runner.close();
  });
});

describe("sliding-window summaries in requests", () => {
  it("keeps every window's summary (overlapping windows do not hide earlier ones)", async () => {
    const seen: string[][] = [];
    const agentModel = new ScriptedModel({
      steps: Array.from({ length: 5 }, (_, i) => (request: LlmRequest) => {
        seen.push(request.contents.map((c) => c.parts?.map((p) => p.text).join("") ?? ""));
        return ScriptedModel.text(`a${i + 1}`);
      }),
    });
    let n = 0;
    const summarizer = new LlmEventSummarizer({
      model: new ScriptedModel({ steps: [0, 1].map(() => () => ScriptedModel.text(`S${++n}`)) }),
    });
    const app = new App({
      name: "slide",
      rootAgent: new LlmAgent({ name: "root", model: agentModel }),
      eventsCompactionConfig: { compactionInterval: 2, overlapSize: 1, summarizer },
    });
    const runner = new InMemoryRunner({ app });
    const session = await runner.sessionService.createSession({ appName: "slide", userId: "u" });
    for (let i = 1; i <= 5; i++)
      for await (const _ of runner.runAsync({
        userId: "u",
        sessionId: session.id,
        newMessage: { role: "user", parts: [{ text: `q${i}` }] },
      }));
    // S1 covers q1..a2; S2 covers q2..a4 (overlap q2/a2); both stay, in range order.
    expect(seen[4]).toEqual(["S1", "S2", "q5"]);
    await runner.close();
  });
});
