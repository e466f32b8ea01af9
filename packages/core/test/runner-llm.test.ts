import { describe, expect, it } from "@jest/globals";
import {
  App,
  InMemoryRunner,
  LiveRequestQueue,
  LlmAgent,
  RunAbortedError,
  SequentialAgent,
  StreamingMode,
  createEvent,
  type Event,
  type EventsSummarizer,
} from "../src/index.js";
import { ScriptedLiveModel, ScriptedModel } from "../src/testing/index.js";
import { FOREVER_MS, collect, settle } from "./runner-fixtures/test-agents.js";

async function setup(runner: InMemoryRunner) {
  await runner.sessionService.createSession({ appName: runner.appName, userId: "u", sessionId: "s" });
  return async () =>
    (await runner.sessionService.getSession({ appName: runner.appName, userId: "u", sessionId: "s" }))!;
}
const textOf = (e: Event) => e.content?.parts?.map((p) => p.text ?? "").join("") ?? "";

describe("Runner with LlmAgent", () => {
  it("aborting during a slow model call stops promptly and persists nothing after the abort", async () => {
    const tool = { calls: 0 };
    const { FunctionTool } = await import("../src/index.js");
    const lookup = new FunctionTool({ name: "lookup", description: "x", execute: () => ({ n: ++tool.calls }) });
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("lookup", {}, "c1"), ScriptedModel.text("too late")],
    });
    const slow = new ScriptedModel({ delayMs: FOREVER_MS, steps: [] });
    // First call answers at once; the second one is slow.
    const agent = new LlmAgent({
      name: "root",
      model,
      tools: [lookup],
      beforeModelCallback: async ({ request }) => {
        if (model.requests.length === 1) {
          for await (const r of slow.generateContentAsync(request, false, { signal: controller.signal })) return r;
        }
        return undefined;
      },
    });
    const controller = new AbortController();
    // The slow call aborts as it starts (a checked step's check runs first), then would wait an hour.
    slow.push({ step: ScriptedModel.text("never"), expect: () => controller.abort() });
    const runner = new InMemoryRunner({ agent });
    const stored = await setup(runner);
    const seen: Event[] = [];
    await expect(
      (async () => {
        for await (const e of runner.runAsync({
          userId: "u",
          sessionId: "s",
          newMessage: "go",
          signal: controller.signal,
        }))
          seen.push(e);
      })(),
    ).rejects.toBeInstanceOf(RunAbortedError);
    const persisted = (await stored()).events;
    expect(persisted).toHaveLength(3); // user, call, response
    expect(persisted.slice(1)).toEqual(seen);
    expect(tool.calls).toBe(1);
  });

  it("aborting a plain slow ScriptedModel call ends the run with RunAbortedError", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel({
      delayMs: FOREVER_MS,
      steps: [{ step: ScriptedModel.text("late"), expect: () => controller.abort() }],
    });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "root", model }) });
    const stored = await setup(runner);
    await expect(
      collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "go", signal: controller.signal })),
    ).rejects.toBeInstanceOf(RunAbortedError);
    await settle();
    expect((await stored()).events.map((e) => e.author)).toEqual(["user"]);
  });

  it("streams partial model chunks in SSE mode without persisting them", async () => {
    const model = new ScriptedModel({ steps: [{ chunks: ["Hel", "lo"] }] });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "root", model }) });
    const stored = await setup(runner);
    const events = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: "hi",
        runConfig: { streamingMode: StreamingMode.SSE },
      }),
    );
    expect(events.map((e) => [textOf(e), e.partial ?? false])).toEqual([
      ["Hel", true],
      ["lo", true],
      ["Hello", false],
    ]);
    expect((await stored()).events.map(textOf)).toEqual(["hi", "Hello"]);
  });

  it("runs a SequentialAgent live, one sub-agent after the other", async () => {
    const m1 = new ScriptedLiveModel({
      replies: [[{ content: { role: "model", parts: [{ text: "first" }] }, turnComplete: true }]],
    });
    const m2 = new ScriptedLiveModel();
    const seq = new SequentialAgent({
      name: "seq",
      subAgents: [new LlmAgent({ name: "one", model: m1 }), new LlmAgent({ name: "two", model: m2 })],
    });
    const runner = new InMemoryRunner({ agent: seq });
    await setup(runner);
    const queue = new LiveRequestQueue();
    queue.sendContent({ role: "user", parts: [{ text: "hi" }] });
    const events: Event[] = [];
    for await (const e of runner.runLive({ userId: "u", sessionId: "s", liveRequestQueue: queue })) {
      events.push(e);
      if (e.turnComplete) queue.close();
    }
    expect(events.map((e) => e.author)).toEqual(["one"]);
    expect(m1.lastConnection!.closed).toBe(true);
    // The second agent connected after the first ended and saw the history.
    const history = JSON.stringify(m2.lastConnection!.history);
    expect(history).toContain("hi");
    expect(history).toContain("first");
    expect(m2.lastConnection!.closed).toBe(true);
  });
});

describe("events compaction", () => {
  it("summarizes every compactionInterval invocations with overlap and stores the compaction event", async () => {
    const windows: string[][] = [];
    const summarizer: EventsSummarizer = {
      async maybeSummarizeEvents({ events }) {
        windows.push(events.map(textOf));
        const last = events[events.length - 1]!;
        return createEvent({
          author: "user",
          invocationId: last.invocationId,
          actions: {
            compaction: {
              startTimestamp: events[0]!.timestamp,
              endTimestamp: last.timestamp,
              compactedContent: { role: "model", parts: [{ text: `summary of ${events.length}` }] },
            },
          },
        });
      },
    };
    const model = new ScriptedModel({ steps: ["a1", "a2", "a3", "a4"].map((t) => ScriptedModel.text(t)) });
    const app = new App({
      name: "compacting",
      rootAgent: new LlmAgent({ name: "root", model }),
      eventsCompactionConfig: { compactionInterval: 2, overlapSize: 1, summarizer },
    });
    const runner = new InMemoryRunner({ app });
    const stored = await setup(runner);
    for (const q of ["q1", "q2", "q3", "q4"])
      await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: q }));
    expect(windows).toEqual([
      ["q1", "a1", "q2", "a2"],
      ["q2", "a2", "q3", "a3", "q4", "a4"],
    ]);
    const compactions = (await stored()).events.filter((e) => e.actions.compaction);
    expect(compactions.map((e) => e.actions.compaction!.compactedContent.parts?.[0]?.text)).toEqual([
      "summary of 4",
      "summary of 6",
    ]);
  });
});
