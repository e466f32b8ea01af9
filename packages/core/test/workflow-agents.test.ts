import { describe, expect, it } from "@jest/globals";
import {
  ConfigurationError,
  InMemoryRunner,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  RunAbortedError,
  SequentialAgent,
  exitLoopTool,
  type BaseAgent,
  type Event,
  type InvocationContext,
} from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";
import { FOREVER_MS, ScriptAgent, collect, say } from "./runner-fixtures/test-agents.js";

async function run(agent: BaseAgent, message = "go", signal?: AbortSignal) {
  const runner = new InMemoryRunner({ agent, appName: "app" });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const events = await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: message, signal }));
  const session = (await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: "s" }))!;
  return { runner, events, session };
}
const texts = (events: Event[]) => events.map((e) => e.content?.parts?.map((p) => p.text ?? "").join("") ?? "");
const requestTexts = (model: ScriptedModel, i: number) =>
  JSON.stringify(model.requests[i]!.contents.map((c) => c.parts?.map((p) => p.text ?? "").join("")));

describe("SequentialAgent", () => {
  it("runs sub-agents in order, each seeing the previous one's persisted events", async () => {
    const first = new ScriptAgent({ name: "first", steps: [say("a1"), say("a2")] });
    const second = new ScriptAgent({ name: "second", steps: [say("b1")] });
    const { events } = await run(new SequentialAgent({ name: "seq", subAgents: [first, second] }));
    expect(events.map((e) => [e.author, texts([e])[0]])).toEqual([
      ["first", "a1"],
      ["first", "a2"],
      ["second", "b1"],
    ]);
    expect(second.seen[0]!.eventCount).toBe(3);
  });

  it("passes one LLM agent's answer to the next through the shared history", async () => {
    const m1 = new ScriptedModel({ steps: [ScriptedModel.text("draft: hello")] });
    const m2 = new ScriptedModel({ steps: [ScriptedModel.text("reviewed")] });
    const seq = new SequentialAgent({
      name: "pipeline",
      subAgents: [new LlmAgent({ name: "writer", model: m1 }), new LlmAgent({ name: "reviewer", model: m2 })],
    });
    const { events } = await run(seq, "write");
    expect(texts(events)).toEqual(["draft: hello", "reviewed"]);
    expect(requestTexts(m2, 0)).toContain("draft: hello");
  });

  it("skips the rest once the invocation ended", async () => {
    class Ender extends ScriptAgent {
      protected override async *runAsyncImpl(ctx: InvocationContext) {
        yield* super.runAsyncImpl(ctx);
        ctx.end();
      }
    }
    const later = new ScriptAgent({ name: "later", steps: [say("never")] });
    const { events } = await run(
      new SequentialAgent({ name: "seq", subAgents: [new Ender({ name: "ender", steps: [say("bye")] }), later] }),
    );
    expect(texts(events)).toEqual(["bye"]);
    expect(later.seen).toHaveLength(0);
  });
});

describe("ParallelAgent", () => {
  it("runs sub-agents concurrently in isolated branches", async () => {
    // Each model answers only once both were called: run one after the other, they would never finish.
    let called = 0;
    let bothCalled!: () => void;
    const meeting = new Promise<void>((resolve) => (bothCalled = resolve));
    const answerWhenBothCalled = (text: string) => async () => {
      if (++called === 2) bothCalled();
      await meeting;
      return ScriptedModel.text(text);
    };
    const ma = new ScriptedModel({ steps: [answerWhenBothCalled("alpha says A")] });
    const mb = new ScriptedModel({ steps: [answerWhenBothCalled("beta says B")] });
    const par = new ParallelAgent({
      name: "fan",
      subAgents: [new LlmAgent({ name: "alpha", model: ma }), new LlmAgent({ name: "beta", model: mb })],
    });
    const { events, session } = await run(new SequentialAgent({ name: "root", subAgents: [par] }), "question");
    expect(new Map(events.map((e) => [e.author, e.branch]))).toEqual(
      new Map([
        ["alpha", "fan.alpha"],
        ["beta", "fan.beta"],
      ]),
    );
    expect(session.events).toHaveLength(3);
    // Each model saw the user's question but not the sibling's answer.
    expect(requestTexts(ma, 0)).toContain("question");
    expect(requestTexts(mb, 0)).toContain("question");
    expect(requestTexts(ma, 0)).not.toContain("beta says B");
    expect(requestTexts(mb, 0)).not.toContain("alpha says A");
  });

  it("keeps branch isolation across turns of a sub-agent", async () => {
    const ma = new ScriptedModel({ delayMs: 10, steps: [ScriptedModel.text("A1"), ScriptedModel.text("A2")] });
    const mb = new ScriptedModel({ delayMs: 30, steps: [ScriptedModel.text("B1"), ScriptedModel.text("B2")] });
    const par = new ParallelAgent({
      name: "fan",
      subAgents: [new LlmAgent({ name: "alpha", model: ma }), new LlmAgent({ name: "beta", model: mb })],
    });
    const runner = new InMemoryRunner({ agent: par, appName: "app" });
    await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
    await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "q1" }));
    await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "q2" }));
    expect(requestTexts(ma, 1)).toContain("A1");
    expect(requestTexts(ma, 1)).not.toContain("B1");
    expect(requestTexts(mb, 1)).toContain("B1");
    expect(requestTexts(mb, 1)).not.toContain("A1");
  });

  it("interleaves events as produced and resumes a sub-agent only after its event was persisted", async () => {
    // Production order a1, b1, a2, b2: each step waits until the other agent was resumed.
    const a: ScriptAgent = new ScriptAgent({
      name: "a",
      steps: [say("a1"), say("a2", { after: () => b.resumed(1) })],
    });
    const b: ScriptAgent = new ScriptAgent({
      name: "b",
      steps: [say("b1", { after: () => a.resumed(1) }), say("b2", { after: () => a.resumed(2) })],
    });
    const { events } = await run(new ParallelAgent({ name: "fan", subAgents: [a, b] }));
    expect(texts(events)).toEqual(["a1", "b1", "a2", "b2"]);
    // a's second step started after a1 was persisted (user + a1 at least).
    expect(a.seen[1]!.eventCount).toBeGreaterThanOrEqual(2);
    expect(b.seen[1]!.eventCount).toBeGreaterThanOrEqual(3);
    expect(a.seen[0]!.branch).toBe("fan.a");
  });

  it("nests branches under the parent's branch", async () => {
    const inner = new ScriptAgent({ name: "leaf", steps: [say("x")] });
    const { events } = await run(
      new ParallelAgent({ name: "outer", subAgents: [new ParallelAgent({ name: "inner", subAgents: [inner] })] }),
    );
    expect(events[0]!.branch).toBe("outer.inner.inner.leaf");
  });

  it("stops the other sub-agents and propagates when one fails", async () => {
    // The slow one would wait an hour: only being stopped ends it.
    const slow = new ScriptAgent({ name: "slow", steps: [say("late", { delayMs: FOREVER_MS })] });
    class Failing extends ScriptAgent {
      // biome-ignore lint/correctness/useYield: an agent that fails before its first event
      protected override async *runAsyncImpl(): AsyncGenerator<Event, void, void> {
        await slow.started; // fail while the other one is running
        throw new ConfigurationError("sub-agent failed");
      }
    }
    await expect(
      run(new ParallelAgent({ name: "fan", subAgents: [new Failing({ name: "bad" }), slow] })),
    ).rejects.toThrow("sub-agent failed");
    await slow.finished;
    expect(slow.finallyRan).toBe(1);
    expect(slow.seen).toHaveLength(0);
  });

  it("stops every sub-agent when the run is aborted", async () => {
    const a = new ScriptAgent({ name: "a", steps: [say("late", { delayMs: FOREVER_MS })] });
    const b = new ScriptAgent({ name: "b", steps: [say("late", { delayMs: FOREVER_MS })] });
    const controller = new AbortController();
    void Promise.all([a.started, b.started]).then(() => controller.abort());
    await expect(
      run(new ParallelAgent({ name: "fan", subAgents: [a, b] }), "go", controller.signal),
    ).rejects.toBeInstanceOf(RunAbortedError);
    await Promise.all([a.finished, b.finished]);
    expect([a.finallyRan, b.finallyRan]).toEqual([1, 1]);
  });

  it("does not support live runs", async () => {
    const runner = new InMemoryRunner({ agent: new ParallelAgent({ name: "fan", subAgents: [] }), appName: "app" });
    await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
    const { LiveRequestQueue } = await import("../src/index.js");
    await expect(
      collect(runner.runLive({ userId: "u", sessionId: "s", liveRequestQueue: new LiveRequestQueue() })),
    ).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe("LoopAgent", () => {
  it("runs its sub-agents maxIterations rounds", async () => {
    const a = new ScriptAgent({ name: "a", steps: [say("tick")] });
    const b = new ScriptAgent({ name: "b", steps: [say("tock")] });
    const { events } = await run(new LoopAgent({ name: "loop", subAgents: [a, b], maxIterations: 3 }));
    expect(texts(events)).toEqual(["tick", "tock", "tick", "tock", "tick", "tock"]);
  });

  it("stops when a sub-agent escalates through exitLoopTool, skipping the rest of the round", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.text("not yet"), ScriptedModel.functionCall("exit_loop", {}, "x1")],
    });
    const worker = new LlmAgent({ name: "worker", model, tools: [exitLoopTool] });
    const after = new ScriptAgent({ name: "after", steps: [say("after-worker")] });
    const { events } = await run(new LoopAgent({ name: "loop", subAgents: [worker, after], maxIterations: 10 }));
    expect(events.map((e) => e.author)).toEqual(["worker", "after", "worker", "worker"]);
    expect(events.at(-1)!.actions.escalate).toBe(true);
    expect(after.seen).toHaveLength(1);
    model.assertConsumed();
  });

  it("rejects a non-positive maxIterations", () => {
    expect(() => new LoopAgent({ name: "loop", maxIterations: 0 })).toThrow(ConfigurationError);
  });
});

describe("transfer across invocations", () => {
  it("continues with the agent the conversation was transferred to", async () => {
    const rootModel = new ScriptedModel({
      steps: [ScriptedModel.functionCall("transfer_to_agent", { agent_name: "helper" }, "t1")],
    });
    const helperModel = new ScriptedModel({
      steps: [ScriptedModel.text("helper here"), ScriptedModel.text("still helper")],
    });
    const helper = new LlmAgent({ name: "helper", model: helperModel, description: "helps" });
    const root = new LlmAgent({ name: "root", model: rootModel, subAgents: [helper] });
    const runner = new InMemoryRunner({ agent: root, appName: "app" });
    await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
    const first = await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "need help" }));
    expect(first.at(-1)!.author).toBe("helper");
    const second = await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "more" }));
    expect(second.map((e) => e.author)).toEqual(["helper"]);
    expect(texts(second)).toEqual(["still helper"]);
    rootModel.assertConsumed();
    helperModel.assertConsumed();
  });

  it("returns to the root when the transferred agent may not transfer back to its parent", async () => {
    const rootModel = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("transfer_to_agent", { agent_name: "helper" }, "t1"),
        ScriptedModel.text("root again"),
      ],
    });
    const helper = new LlmAgent({
      name: "helper",
      model: new ScriptedModel({ steps: [ScriptedModel.text("once")] }),
      disallowTransferToParent: true,
    });
    const root = new LlmAgent({ name: "root", model: rootModel, subAgents: [helper] });
    const runner = new InMemoryRunner({ agent: root, appName: "app" });
    await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
    await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "need help" }));
    const second = await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: "more" }));
    expect(second.map((e) => e.author)).toEqual(["root"]);
  });
});
