// Tracing costs what is new per model call and its memory is bounded in bytes: a model request
// (the whole conversation) is recorded as a chain of shared contents and written on read.
import { describe, expect, it } from "@jest/globals";
import { InMemoryRunner, LlmAgent, type Content, type Event } from "@agentkit/core";
import { ContentsProbeModel, ScriptedModel } from "@agentkit/core/testing";
import { createTraceRecorder, type TraceRecorder } from "../../src/telemetry/index.js";
import { toJsonString } from "../../src/telemetry/trace-json.js";

const LONG_TEXT = "lorem ipsum dolor sit amet ".repeat(40); // ~1 KB a turn

async function converse(recorder: TraceRecorder, turns: number, onTurn?: (turn: number, events: Event[]) => void) {
  const model = new ScriptedModel({
    steps: Array.from({ length: turns }, (_, i) => ScriptedModel.text(`answer ${i} ${LONG_TEXT}`)),
  });
  const runner = new InMemoryRunner({
    agent: new LlmAgent({ name: "talker", model }),
    appName: "app",
    plugins: [recorder.plugin],
  });
  const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
  for (let turn = 1; turn <= turns; turn++) {
    const events: Event[] = [];
    for await (const event of runner.runAsync({
      userId: "u",
      sessionId: session.id,
      newMessage: `question ${turn} ${LONG_TEXT}`,
    }))
      events.push(event);
    onTurn?.(turn, events);
  }
  await runner.close();
  return { model, sessionId: session.id };
}

describe("trace memory", () => {
  it("adds about the same bytes per turn at turn 150 as at turn 10 (not the whole conversation each time)", async () => {
    const recorder = createTraceRecorder({ maxBytes: 1024 * 1024 * 1024, maxSpans: 100_000, maxTraces: 100_000 });
    const bytesAt = new Map<number, number>();
    await converse(recorder, 160, (turn) => bytesAt.set(turn, recorder.size.bytes));
    const early = (bytesAt.get(20)! - bytesAt.get(10)!) / 10;
    const late = (bytesAt.get(160)! - bytesAt.get(150)!) / 10;
    expect(early).toBeGreaterThan(1000); // a turn's own text is recorded
    expect(late).toBeLessThan(early * 1.5);
    await recorder.shutdown();
  });

  it("writes the request on read, equal to what the model received, and caps a session's span list", async () => {
    const recorder = createTraceRecorder({ maxListAttributeChars: 2000 });
    let lastEvent: Event | undefined;
    const { model, sessionId } = await converse(recorder, 30, (_turn, events) => (lastEvent = events.at(-1)));
    const attributes = recorder.attributesForEvent(lastEvent!.id)!;
    const request = JSON.parse(String(attributes["gcp.vertex.agent.llm_request"])) as {
      contents: unknown[];
      model: string;
    };
    expect(request.contents).toEqual(JSON.parse(JSON.stringify(model.requests.at(-1)!.contents)));
    expect(request.contents).toHaveLength(59);
    const listed = recorder.spansForSession(sessionId).filter((s) => s.name === "call_llm");
    expect(listed).toHaveLength(30);
    for (const span of listed) {
      const text = String(span.attributes["gcp.vertex.agent.llm_request"]);
      expect(text.length).toBeLessThanOrEqual(2000);
      expect(() => JSON.parse(text)).not.toThrow();
    }
    await recorder.shutdown();
  });

  it.each([150, 700, 5000])(
    "lists a session's spans with each request's head as the whole request cut to %i characters",
    async (listChars) => {
      const recorder = createTraceRecorder({ maxListAttributeChars: listChars });
      const { sessionId } = await converse(recorder, 12);
      const listed = recorder.spansForSession(sessionId).filter((s) => s.name === "call_llm");
      expect(listed).toHaveLength(12);
      for (const span of listed) {
        const eventId = String(span.attributes["gcp.vertex.agent.event_id"]);
        const whole = String(recorder.attributesForEvent(eventId)!["gcp.vertex.agent.llm_request"]);
        expect(JSON.parse(whole)).toHaveProperty("contents");
        expect(span.attributes["gcp.vertex.agent.llm_request"]).toBe(toJsonString(JSON.parse(whole), listChars));
      }
      await recorder.shutdown();
    },
  );

  it("makes no copy of the history for the model call it traces", async () => {
    const recorder = createTraceRecorder();
    const model = new ContentsProbeModel();
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "talker", model }),
      appName: "app",
      plugins: [recorder.plugin],
    });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    let lastEvent: Event | undefined;
    for (let turn = 1; turn <= 20; turn++) {
      for await (const event of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: `question ${turn}` }))
        lastEvent = event;
    }
    // Past the history length the runner shares (16 events), every call got the session's one
    // history array: the tracing plugin read it where it was, copying nothing.
    const late = model.requests.slice(10).map((r) => r.contents);
    expect(new Set(late).size).toBe(1);
    const request = JSON.parse(String(recorder.attributesForEvent(lastEvent!.id)!["gcp.vertex.agent.llm_request"])) as {
      contents: Content[];
    };
    expect(request.contents).toHaveLength(39);
    expect(request.contents.at(-1)).toEqual({ role: "user", parts: [{ text: "question 20" }] });
    await runner.close();
    await recorder.shutdown();
  });

  it("records each request's own config: an equal one is kept once, a changed one as it was", async () => {
    const recorder = createTraceRecorder();
    const instructions = ["Be brief.", "Be brief.", "Be thorough.", "Be brief."];
    let turn = 0;
    const model = new ScriptedModel({ steps: instructions.map((_, i) => ScriptedModel.text(`answer ${i}`)) });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "talker", model, instruction: () => instructions[turn]! }),
      appName: "app",
      plugins: [recorder.plugin],
    });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    const answers: Event[] = [];
    for (turn = 0; turn < instructions.length; turn++) {
      for await (const event of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: `question ${turn}` }))
        answers.push(event);
    }
    const recorded = answers
      .filter((event) => event.author === "talker")
      .map((event) => {
        const text = String(recorder.attributesForEvent(event.id)!["gcp.vertex.agent.llm_request"]);
        return (JSON.parse(text) as { config: { systemInstruction?: unknown } }).config.systemInstruction;
      });
    expect(recorded).toEqual(model.requests.map((request) => request.config?.systemInstruction));
    expect(recorded.map(String)).toEqual(instructions.map((text) => expect.stringContaining(text)));
    await runner.close();
    await recorder.shutdown();
  });

  it("stays within its byte budget, evicting the oldest traces, and keeps the newest readable", async () => {
    const recorder = createTraceRecorder({ maxBytes: 200_000 });
    let lastEvent: Event | undefined;
    await converse(recorder, 120, (_turn, events) => {
      lastEvent = events.at(-1);
      expect(recorder.size.bytes).toBeLessThanOrEqual(200_000);
    });
    expect(recorder.size.traces).toBeLessThan(120);
    expect(recorder.attributesForEvent(lastEvent!.id)?.["gcp.vertex.agent.llm_request"]).toEqual(expect.any(String));
    await recorder.shutdown();
  });

  it("records no prompts, responses or tool payloads when content capture is off", async () => {
    const recorder = createTraceRecorder({ captureContent: false });
    let lastEvent: Event | undefined;
    const { sessionId } = await converse(recorder, 2, (_turn, events) => (lastEvent = events.at(-1)));
    const attributes = recorder.attributesForEvent(lastEvent!.id)!;
    expect(attributes["gcp.vertex.agent.llm_request"]).toBeUndefined();
    expect(attributes["gcp.vertex.agent.llm_response"]).toBeUndefined();
    expect(JSON.stringify(recorder.spansForSession(sessionId))).not.toContain("lorem ipsum");
    await recorder.shutdown();
  });
});
