import { describe, expect, it } from "@jest/globals";
import {
  AgentTool,
  InMemorySessionService,
  LlmAgent,
  MODEL_METADATA_KEY,
  StreamingMode,
  USAGE_METADATA_KEY,
  createEvent,
  sessionUsageFromEvents,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import {
  FakeClock,
  PRICES,
  call,
  clockTool,
  makeRunner,
  newSession,
  run,
  storedEvents,
  text,
  usage,
  usageOf,
} from "./helpers.js";

describe("usage rollups", () => {
  it("puts the invocation's and the session's usage on the final event, priced from the table", async () => {
    const clock = new FakeClock();
    const model = new ScriptedModel({
      steps: [
        call("work", usage(100, 10, { cachedContentTokenCount: 40 })),
        text("done", usage(150, 20, { thoughtsTokenCount: 5 })),
        text("again", usage(300, 30)),
      ],
    });
    const agent = new LlmAgent({ name: "root", model, tools: [clockTool(clock)] });
    const runner = makeRunner({ agent, prices: PRICES, clock });
    await newSession(runner);

    const first = await run(runner, "go");
    expect(first.error).toBeUndefined();
    // Only the final answer carries usage: the call and the tool's response are not final.
    expect(first.events.map((e) => usageOf(e) !== undefined)).toEqual([false, false, true]);
    const { invocation, session } = usageOf(first.events.at(-1))!;
    expect(invocation.tokens).toEqual({
      prompt: 250,
      candidates: 30,
      cached: 40,
      thoughts: 5,
      toolUsePrompt: 0,
      total: 285,
    });
    expect(invocation).toMatchObject({ modelCalls: 2, toolCalls: 1, durationMs: 250 });
    // (250 - 40) input × $2 + 40 cached × $0.5 + (285 - 250) output × $10, per million tokens.
    expect(invocation.costUsd).toBeCloseTo(790 / 1_000_000, 12);
    expect(invocation.models["scripted-model"]).toMatchObject({ modelCalls: 2, tokens: { total: 285 } });
    expect(session).toEqual(invocation);

    const second = await run(runner, "again");
    const after = usageOf(second.events.at(-1))!;
    expect(after.invocation).toMatchObject({ modelCalls: 1, toolCalls: 0, durationMs: 0, tokens: { total: 330 } });
    expect(after.session).toMatchObject({ modelCalls: 3, toolCalls: 1, durationMs: 250, tokens: { total: 615 } });
    expect(after.session.costUsd).toBeCloseTo((790 + 300 * 2 + 30 * 10) / 1_000_000, 12);

    // The stored final events carry the same rollups.
    const stored = await storedEvents(runner);
    expect(usageOf(stored.at(-1))).toEqual(after);
  });

  it("runner.getUsage computes the session's usage from stored events, also on a new runner", async () => {
    const clock = new FakeClock();
    const sessionService = new InMemorySessionService();
    const model = new ScriptedModel({
      steps: [call("work", usage(100, 10)), text("one", usage(120, 12)), text("two", usage(200, 20))],
    });
    const agent = new LlmAgent({ name: "root", model, tools: [clockTool(clock)] });
    const runner = makeRunner({ agent, prices: PRICES, clock }, sessionService);
    await newSession(runner);
    const one = await run(runner, "one");
    const two = await run(runner, "two");

    const report = await runner.getUsage({ userId: "u", sessionId: "s1" });
    expect(report.invocations.map((i) => i.invocationId)).toEqual([
      one.events[0]!.invocationId,
      two.events[0]!.invocationId,
    ]);
    expect(report.invocations.map((i) => [i.modelCalls, i.toolCalls, i.tokens.total, i.durationMs])).toEqual([
      [2, 1, 242, 250],
      [1, 0, 220, 0],
    ]);
    expect(report.total).toMatchObject({ modelCalls: 3, toolCalls: 1, durationMs: 250, tokens: { total: 462 } });
    expect(report.total.costUsd).toBeCloseTo(((100 + 120 + 200) * 2 + (10 + 12 + 20) * 10) / 1_000_000, 12);

    // Another replica (or the server after a restart) reads the same figures from the store.
    const replica = makeRunner(
      { agent: new LlmAgent({ name: "root", model: new ScriptedModel() }), prices: PRICES },
      sessionService,
    );
    expect(await replica.getUsage({ userId: "u", sessionId: "s1" })).toEqual(report);
    await expect(replica.getUsage({ userId: "u", sessionId: "missing" })).rejects.toMatchObject({
      code: "SESSION_NOT_FOUND",
    });
  });

  it("leaves the cost undefined when a model has no price, and names it", async () => {
    const model = new ScriptedModel({ steps: [text("hi", usage(10, 5))] });
    const runner = makeRunner({ agent: new LlmAgent({ name: "root", model }) });
    await newSession(runner);
    const { events } = await run(runner, "hi");
    const { invocation } = usageOf(events.at(-1))!;
    expect(invocation.costUsd).toBeUndefined();
    expect(invocation.unpricedModels).toEqual(["scripted-model"]);
    expect(invocation.models["scripted-model"]!.costUsd).toBeUndefined();
    expect(invocation.tokens.total).toBe(15);
  });

  it("counts streamed usage once (from the complete response) and credits the model that answered", async () => {
    const model = new ScriptedModel({
      steps: [
        {
          stream: [
            { content: { role: "model", parts: [{ text: "Hel" }] }, partial: true, usageMetadata: usage(10, 1) },
            {
              content: { role: "model", parts: [{ text: "Hello" }] },
              usageMetadata: usage(10, 5),
              // What FallbackModel writes when a backup model answered.
              customMetadata: { [MODEL_METADATA_KEY]: "gpt-4o-mini-2024-07-18" },
            },
          ],
        },
      ],
    });
    const runner = makeRunner({ agent: new LlmAgent({ name: "root", model }) });
    await newSession(runner);
    const { events } = await run(runner, "hi", { runConfig: { streamingMode: StreamingMode.SSE } });
    expect(events.map((e) => e.partial ?? false)).toEqual([true, false]);
    expect(usageOf(events[0])).toBeUndefined();
    const { invocation } = usageOf(events[1])!;
    expect(Object.keys(invocation.models)).toEqual(["gpt-4o-mini-2024-07-18"]);
    expect(invocation).toMatchObject({ modelCalls: 1, tokens: { prompt: 10, candidates: 5, total: 15 } });
    // Shipped price of gpt-4o-mini: $0.15 in, $0.60 out.
    expect(invocation.costUsd).toBeCloseTo((10 * 0.15 + 5 * 0.6) / 1_000_000, 12);
  });

  it("counts a failed model call and the usage of an AgentTool's own run", async () => {
    const childModel = new ScriptedModel({ model: "child-model", steps: [text("child answer", usage(40, 4))] });
    const child = new LlmAgent({ name: "helper", model: childModel, description: "helps" });
    const model = new ScriptedModel({
      steps: [
        { error: Object.assign(new Error("boom"), { code: "SERVER_ERROR" }) },
        call("helper", usage(100, 10), { request: "help" }),
        text("final", usage(150, 15)),
      ],
    });
    const runner = makeRunner({
      agent: new LlmAgent({ name: "root", model, tools: [new AgentTool({ agent: child })] }),
    });
    await newSession(runner);
    const failed = await run(runner, "first");
    expect(failed.events.at(-1)!.errorCode).toBe("SERVER_ERROR");
    expect(usageOf(failed.events.at(-1))!.invocation).toMatchObject({ modelCalls: 1, tokens: { total: 0 } });

    const { events } = await run(runner, "second");
    const { invocation, session } = usageOf(events.at(-1))!;
    expect(invocation.models).toMatchObject({
      "scripted-model": { modelCalls: 2, tokens: { total: 275 } },
      "child-model": { modelCalls: 1, tokens: { total: 44 } },
    });
    expect(invocation).toMatchObject({ modelCalls: 3, toolCalls: 1 });
    expect(session).toMatchObject({ modelCalls: 4 });
  });

  it("reads sessions without rollups from their events' usage metadata", () => {
    const model = createEvent({
      invocationId: "e-1",
      author: "root",
      timestamp: 100.5,
      content: { role: "model", parts: [{ text: "hi" }] },
      usageMetadata: usage(1000, 100),
      modelVersion: "gpt-4o-2024-08-06",
    });
    // A rollup that is not a well-formed one (e.g. from an imported session) is ignored.
    const bogus = createEvent({
      invocationId: "e-2",
      author: "root",
      timestamp: 200,
      content: { role: "model", parts: [{ text: "x" }] },
      usageMetadata: usage(10, 1),
      modelVersion: "mystery-model",
      customMetadata: { [USAGE_METADATA_KEY]: { invocation: { models: {}, toolCalls: -5, durationMs: 0 } } },
    });
    const events = [
      createEvent({
        invocationId: "e-1",
        author: "user",
        timestamp: 100,
        content: { role: "user", parts: [{ text: "hi" }] },
      }),
      model,
      createEvent({ invocationId: "p-1", author: "user", timestamp: 150, actions: { stateDelta: { a: 1 } } }),
      bogus,
    ];
    const report = sessionUsageFromEvents(events);
    expect(report.invocations.map((i) => i.invocationId)).toEqual(["e-1", "e-2"]);
    expect(report.invocations[0]).toMatchObject({ modelCalls: 1, durationMs: 500, tokens: { total: 1100 } });
    expect(report.invocations[0]!.costUsd).toBeCloseTo((1000 * 2.5 + 100 * 10) / 1_000_000, 12);
    expect(report.invocations[1]).toMatchObject({ modelCalls: 1, toolCalls: 0, unpricedModels: ["mystery-model"] });
    expect(report.total.costUsd).toBeUndefined();
    expect(report.total.tokens.total).toBe(1111);
  });
});
