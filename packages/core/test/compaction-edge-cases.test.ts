import { describe, expect, it } from "@jest/globals";
import { App, InMemoryRunner, LlmAgent, SequentialAgent, type Event, type EventsSummarizer } from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";

async function turn(runner: InMemoryRunner, sessionId: string, text: string): Promise<Event[]> {
  const events: Event[] = [];
  for await (const e of runner.runAsync({ userId: "u", sessionId, newMessage: text })) events.push(e);
  return events;
}

describe("events compaction edge cases", () => {
  it("a failing summarizer does not fail a completed run: an unstored error event says so, and a later run retries", async () => {
    let calls = 0;
    const summarizer: EventsSummarizer = {
      maybeSummarizeEvents: async () => {
        calls++;
        throw new Error("summary model is down");
      },
    };
    const app = new App({
      name: "failing",
      rootAgent: new LlmAgent({
        name: "root",
        model: new ScriptedModel({ steps: [ScriptedModel.text("a1"), ScriptedModel.text("a2")] }),
      }),
      eventsCompactionConfig: { compactionInterval: 1, summarizer },
    });
    const runner = new InMemoryRunner({ app });
    const session = await runner.sessionService.createSession({ appName: "failing", userId: "u" });
    const events = await turn(runner, session.id, "q1");
    expect(events.map((e) => e.content?.parts?.[0]?.text ?? e.errorCode)).toEqual(["a1", "EVENTS_COMPACTION_FAILED"]);
    expect(events[1]!.errorMessage).toMatch(/the run itself completed.*summary model is down/);
    expect(events[1]!.author).toBe("root");
    const stored = await runner.sessionService.getSession({ appName: "failing", userId: "u", sessionId: session.id });
    expect(stored!.events.some((e) => e.errorCode)).toBe(false);
    expect(stored!.events).toHaveLength(2);
    await turn(runner, session.id, "q2");
    expect(calls).toBe(2);
    await runner.close();
  });

  it("without a summarizer, summarizes with the root agent's own model", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.text("a1"), ScriptedModel.text("The user asked q1; the agent answered a1.")],
    });
    const app = new App({
      name: "fallback",
      rootAgent: new LlmAgent({ name: "root", model }),
      eventsCompactionConfig: { compactionInterval: 1 },
    });
    const runner = new InMemoryRunner({ app });
    const session = await runner.sessionService.createSession({ appName: "fallback", userId: "u" });
    const events = await turn(runner, session.id, "q1");
    expect(events.some((e) => e.errorCode)).toBe(false);
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.contents[0]!.parts![0]!.text).toContain("q1");
    const stored = await runner.sessionService.getSession({ appName: "fallback", userId: "u", sessionId: session.id });
    const compaction = stored!.events.find((e) => e.actions.compaction)?.actions.compaction;
    expect(compaction?.compactedContent.parts?.[0]?.text).toBe("The user asked q1; the agent answered a1.");
    await runner.close();
  });

  it("a root that is not an LlmAgent and no summarizer: nothing is compacted, no error", async () => {
    const inner = new LlmAgent({ name: "inner", model: new ScriptedModel({ steps: [ScriptedModel.text("a1")] }) });
    const app = new App({
      name: "seq",
      rootAgent: new SequentialAgent({ name: "pipeline", subAgents: [inner] }),
      eventsCompactionConfig: { compactionInterval: 1 },
    });
    const runner = new InMemoryRunner({ app });
    const session = await runner.sessionService.createSession({ appName: "seq", userId: "u" });
    const events = await turn(runner, session.id, "q1");
    expect(events.map((e) => e.content?.parts?.[0]?.text ?? e.errorCode)).toEqual(["a1"]);
    const stored = await runner.sessionService.getSession({ appName: "seq", userId: "u", sessionId: session.id });
    expect(stored!.events.some((e) => e.actions.compaction)).toBe(false);
    await runner.close();
  });
});
