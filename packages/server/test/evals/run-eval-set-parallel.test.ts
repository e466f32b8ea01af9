import { describe, expect, it } from "@jest/globals";
import {
  App,
  BaseLlm,
  BasePlugin,
  getTextOf,
  InMemorySessionService,
  LlmAgent,
  Runner,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  createEvalMetrics,
  EVAL_SESSION_PREFIX,
  EvalStatus,
  runEvalSet,
  type EvalProgress,
  type EvalSet,
} from "../../src/evals/index.js";

/**
 * Holds every model call until `batch` calls wait at once (or until aborted), and counts the
 * calls in flight: a sequential runner never reaches the batch and hangs, an unbounded one
 * exceeds it.
 */
class GateModel extends BaseLlm {
  active = 0;
  maxActive = 0;
  private waiting: (() => void)[] = [];
  private watchers: { count: number; resolve: () => void }[] = [];

  constructor(private readonly batch: number) {
    super({ model: "gate" });
  }

  /** Resolves once `count` calls wait at the gate. */
  waitingCalls(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.watchers.push({ count, resolve });
      this.notify();
    });
  }

  async *generateContentAsync(
    request: LlmRequest,
    _stream = false,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      await new Promise<void>((resolve, reject) => {
        options.signal?.addEventListener("abort", () => reject(options.signal?.reason), { once: true });
        this.waiting.push(resolve);
        this.notify();
      });
    } finally {
      this.active -= 1;
    }
    const question = getTextOf(request.contents[request.contents.length - 1]);
    yield { content: { role: "model", parts: [{ text: `answer to ${question}` }] } };
  }

  private notify(): void {
    for (const w of this.watchers.filter((w) => this.waiting.length >= w.count)) w.resolve();
    this.watchers = this.watchers.filter((w) => this.waiting.length < w.count);
    if (this.batch > 0 && this.waiting.length >= this.batch) for (const release of this.waiting.splice(0)) release();
  }
}

function evalSet(questions: string[]): EvalSet {
  return {
    evalSetId: "set",
    creationTimestamp: 0,
    evalCases: questions.map((q) => ({
      evalId: q,
      creationTimestamp: 0,
      conversation: [
        {
          invocationId: "",
          creationTimestamp: 0,
          userContent: { role: "user", parts: [{ text: q }] },
          finalResponse: { role: "model", parts: [{ text: `answer to ${q}` }] },
        },
      ],
    })),
  };
}

const definitions = createEvalMetrics();
const metrics = [{ metricName: "response_match_score", threshold: 1 }];

describe("runEvalSet: parallel cases, cancellation, progress, app plugins", () => {
  it("runs at most `parallel` cases at once, keeps the set's order and reports progress", async () => {
    const model = new GateModel(2);
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: "app", agent: new LlmAgent({ name: "a", model }), sessionService });
    const progress: EvalProgress[] = [];
    const result = await runEvalSet({
      runner,
      sessionService,
      appName: "app",
      evalSet: evalSet(["q1", "q2", "q3", "q4"]),
      metrics,
      definitions,
      parallel: 2,
      onProgress: (p) => {
        progress.push(p);
        throw new Error("a broken progress display does not fail the run");
      },
    });
    await runner.close();
    expect(result.evalCaseResults.map((r) => [r.evalId, r.finalEvalStatus])).toEqual([
      ["q1", EvalStatus.PASSED],
      ["q2", EvalStatus.PASSED],
      ["q3", EvalStatus.PASSED],
      ["q4", EvalStatus.PASSED],
    ]);
    expect(model.maxActive).toBe(2);
    let running = 0;
    for (const p of progress) {
      running += p.kind === "case_started" ? 1 : -1;
      expect(running).toBeLessThanOrEqual(2);
      expect(p.total).toBe(4);
    }
    expect(progress.filter((p) => p.kind === "case_finished").map((p) => p.done)).toEqual([1, 2, 3, 4]);
  });

  it("cancels: running agents stop, no further case starts, the call rejects with the reason", async () => {
    const model = new GateModel(0);
    const sessionService = new InMemorySessionService();
    const runner = new Runner({ appName: "app", agent: new LlmAgent({ name: "a", model }), sessionService });
    const controller = new AbortController();
    const started: string[] = [];
    const run = runEvalSet({
      runner,
      sessionService,
      appName: "app",
      evalSet: evalSet(["q1", "q2", "q3"]),
      metrics,
      definitions,
      parallel: 2,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.kind === "case_started") started.push(p.evalId);
      },
    });
    await model.waitingCalls(2);
    controller.abort(new Error("stopped by the test"));
    await expect(run).rejects.toThrow("stopped by the test");
    await runner.close();
    expect(started).toEqual(["q1", "q2"]);
    expect(model.active).toBe(0);
    const sessions = await sessionService.listSessions({ appName: "app", userId: "eval_user" });
    expect(sessions.sessions.map((s) => s.id.startsWith(EVAL_SESSION_PREFIX))).toEqual([true, true]);
  });

  it("runs the app's plugins inside eval runs, as in a normal run", async () => {
    class CannedAnswer extends BasePlugin {
      constructor() {
        super("canned_answer");
      }
      override beforeModelCallback(): LlmResponse {
        return { content: { role: "model", parts: [{ text: "answer to q1" }] } };
      }
    }
    // A model with no script fails if it is called: only the plugin can answer.
    const agent = new LlmAgent({ name: "a", model: new ScriptedModel({ steps: [] }) });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      app: new App({ name: "app", rootAgent: agent, plugins: [new CannedAnswer()] }),
      sessionService,
    });
    const result = await runEvalSet({
      runner,
      sessionService,
      appName: "app",
      evalSet: evalSet(["q1"]),
      metrics,
      definitions,
    });
    await runner.close();
    expect(result.evalCaseResults[0]!.finalEvalStatus).toBe(EvalStatus.PASSED);
  });
});
