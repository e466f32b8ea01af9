import { describe, expect, it } from "@jest/globals";
import { BaseLlm, type LlmRequest, type LlmResponse } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  createEvalMetrics,
  scoreEvalCase,
  splitSentences,
  EvalStatus,
  type EvalCase,
  type Invocation,
} from "../../src/evals/index.js";

const turn = (user: string, answer: string, extra: Partial<Invocation> = {}): Invocation => ({
  invocationId: "",
  userContent: { role: "user", parts: [{ text: user }] },
  finalResponse: { role: "model", parts: [{ text: answer }] },
  intermediateData: {
    toolUses: [{ id: "c1", name: "get_weather", args: { city: "Oslo" } }],
    toolResponses: [{ id: "c1", name: "get_weather", response: { sky: "sunny", celsius: 21 } }],
    intermediateResponses: [],
  },
  creationTimestamp: 0,
  ...extra,
});

const rubric = (id: string, text: string) => ({ rubric_id: id, rubric_content: { text_property: text } });
const promptOf = (model: ScriptedModel, i: number) => model.requests[i]!.contents[0]!.parts![0]!.text!;

describe("final_response_match_v2", () => {
  it("takes the majority of num_samples verdicts (a tie is invalid) and keeps the raw answers", async () => {
    const judge = new ScriptedModel({
      steps: [
        // Turn 1: valid 3, invalid 2.
        "valid",
        "invalid",
        "Reasoning...\nvalid",
        "invalid",
        "valid",
        // Turn 2: valid 1, invalid 1, three samples without a verdict: a tie.
        "invalid",
        "no verdict",
        "valid",
        "hmm",
        "unsure",
      ].map((t) => ScriptedModel.text(t)),
    });
    const evalCase: EvalCase = {
      evalId: "c",
      conversation: [turn("weather?", "Sunny, 21 degrees"), turn("and tomorrow?", "Rain")],
      creationTimestamp: 0,
    };
    const scores = await scoreEvalCase({
      evalCase,
      actual: [turn("weather?", "It's sunny"), turn("and tomorrow?", "No idea")],
      definitions: createEvalMetrics({ judgeModel: judge }),
      metrics: [
        {
          metricName: "final_response_match_v2",
          criterion: { threshold: 0.5, judge_model_options: { num_samples: 5 } },
        },
      ],
    });
    const [first, second] = scores.evalMetricResultPerInvocation.map((r) => r.evalMetricResults[0]!);
    expect(first).toMatchObject({
      score: 1,
      evalStatus: EvalStatus.PASSED,
      details: { votes: { valid: 3, invalid: 2 } },
    });
    expect((first!.details!.judgeSamples as unknown[]).length).toBe(5);
    expect(second).toMatchObject({ score: 0, details: { votes: { valid: 1, invalid: 1 } } });
    expect(scores.overallEvalMetricResults[0]).toMatchObject({ score: 0.5, evalStatus: EvalStatus.PASSED });
    expect(promptOf(judge, 0)).toContain("Reference answer: Sunny, 21 degrees");
    expect(promptOf(judge, 0)).toContain("Agent answer: It's sunny");
    judge.assertConsumed();
  });
});

describe("rubric-based metrics", () => {
  it("rubric_based_final_response_quality_v1: majority per rubric, score = share of rubrics met", async () => {
    const judge = new ScriptedModel({
      steps: [
        "concise: yes - one sentence\ncites_tool: no - no number",
        "concise: yes - short\ncites_tool: yes - says 21",
        "**concise**: no - rambles\ncites_tool: no - no figure",
      ].map((t) => ScriptedModel.text(t)),
    });
    const evalCase: EvalCase = {
      evalId: "c",
      conversation: [turn("weather?", "")],
      rubrics: [{ rubricId: "cites_tool", rubricContent: { textProperty: "The answer uses the tool's temperature." } }],
      creationTimestamp: 0,
    };
    const scores = await scoreEvalCase({
      evalCase,
      actual: [turn("weather?", "Sunny.")],
      definitions: createEvalMetrics({ judgeModel: judge }),
      metrics: [
        {
          metricName: "rubric_based_final_response_quality_v1",
          criterion: {
            threshold: 0.5,
            judge_model_options: { num_samples: 3, judge_model_config: { temperature: 0, max_output_tokens: 256 } },
            rubrics: [rubric("concise", "The answer is one or two sentences.")],
          },
        },
      ],
    });
    // concise: yes, yes, no -> 1; cites_tool: no, yes, no -> 0; mean 0.5.
    const overall = scores.overallEvalMetricResults[0]!;
    expect(overall).toMatchObject({ score: 0.5, evalStatus: EvalStatus.PASSED });
    expect(overall.details!.rubricScores).toEqual([
      { rubricId: "concise", score: 1 },
      { rubricId: "cites_tool", score: 0 },
    ]);
    const perTurn = scores.evalMetricResultPerInvocation[0]!.evalMetricResults[0]!;
    expect(perTurn.details!.rubricScores).toEqual([
      { rubricId: "concise", score: 1, rationale: "one sentence" },
      { rubricId: "cites_tool", score: 0, rationale: "no number" },
    ]);
    // ADK's judge_model_config (snake_case GenerateContentConfig) reaches every judge request.
    expect(judge.requests.map((r) => [r.config.temperature, r.config.maxOutputTokens])).toEqual([
      [0, 256],
      [0, 256],
      [0, 256],
    ]);
    expect(promptOf(judge, 0)).toContain("- concise: The answer is one or two sentences.");
    expect(promptOf(judge, 0)).toContain("- cites_tool: The answer uses the tool's temperature.");
    expect(promptOf(judge, 0)).toContain('call get_weather({"city":"Oslo"})');
  });

  it("is NOT_EVALUATED without rubrics, and when the judge answers none of them", async () => {
    const judge = new ScriptedModel({ steps: [ScriptedModel.text("I cannot help with that.")] });
    const definitions = createEvalMetrics({ judgeModel: judge });
    const evalCase: EvalCase = { evalId: "c", conversation: [turn("q", "a")], creationTimestamp: 0 };
    const none = await scoreEvalCase({
      evalCase,
      actual: [turn("q", "a")],
      definitions,
      metrics: [{ metricName: "rubric_based_tool_use_quality_v1", criterion: { threshold: 1 } }],
    });
    expect(none.overallEvalMetricResults[0]!.evalStatus).toBe(EvalStatus.NOT_EVALUATED);
    expect(none.overallEvalMetricResults[0]!.details!.reason).toMatch(/needs rubrics/);
    const unanswered = await scoreEvalCase({
      evalCase,
      actual: [turn("q", "a")],
      definitions,
      metrics: [
        {
          metricName: "rubric_based_tool_use_quality_v1",
          criterion: {
            threshold: 1,
            judge_model_options: { num_samples: 1 },
            rubrics: [rubric("r1", "Calls the tool.")],
          },
        },
      ],
    });
    expect(unanswered.overallEvalMetricResults[0]!.details!.reason).toMatch(/answered none of the rubrics/);
    expect(unanswered.finalEvalStatus).toBe(EvalStatus.NOT_EVALUATED);
  });

  it("multi_turn_trajectory_quality_v1 judges the whole conversation once", async () => {
    const judge = new ScriptedModel({ steps: [ScriptedModel.text("goal_met: yes - both turns answered")] });
    const actual = [turn("weather in Oslo?", "Sunny"), turn("and Bergen?", "Rain in Bergen")];
    const scores = await scoreEvalCase({
      evalCase: { evalId: "c", conversation: actual, creationTimestamp: 0 },
      actual,
      definitions: createEvalMetrics({ judgeModel: judge }),
      metrics: [
        {
          metricName: "multi_turn_trajectory_quality_v1",
          criterion: {
            threshold: 1,
            judge_model_options: { num_samples: 1 },
            rubrics: [rubric("goal_met", "Every question gets an answer.")],
          },
        },
      ],
    });
    expect(scores.overallEvalMetricResults[0]).toMatchObject({ score: 1, evalStatus: EvalStatus.PASSED });
    expect(scores.evalMetricResultPerInvocation.every((r) => r.evalMetricResults.length === 0)).toBe(true);
    expect(judge.requests).toHaveLength(1);
    expect(promptOf(judge, 0)).toMatch(/### Turn 1[\s\S]*weather in Oslo\?[\s\S]*### Turn 2[\s\S]*Rain in Bergen/);
  });
});

describe("hallucinations_v1", () => {
  it("labels each sentence and scores the share supported or not applicable", async () => {
    expect(splitSentences("It is sunny in Oslo. It is 21 degrees! Want more?")).toEqual([
      "It is sunny in Oslo.",
      "It is 21 degrees!",
      "Want more?",
    ]);
    const judge = new ScriptedModel({
      steps: [
        "1: supported - tool says sunny\n2: contradictory - tool says 21\n3: not_applicable - offer\n4: unsupported - no wind data",
      ].map((t) => ScriptedModel.text(t)),
    });
    const actual = [turn("weather?", "It is sunny in Oslo. It is 25 degrees. Want the forecast? Wind is calm.")];
    const scores = await scoreEvalCase({
      evalCase: { evalId: "c", conversation: actual, creationTimestamp: 0 },
      actual,
      definitions: createEvalMetrics({ judgeModel: judge }),
      metrics: [
        { metricName: "hallucinations_v1", criterion: { threshold: 0.8, judge_model_options: { num_samples: 1 } } },
      ],
    });
    // 2 of 4 sentences grounded.
    const overall = scores.overallEvalMetricResults[0]!;
    expect(overall).toMatchObject({ score: 0.5, evalStatus: EvalStatus.FAILED });
    const perTurn = scores.evalMetricResultPerInvocation[0]!.evalMetricResults[0]!;
    expect((perTurn.details!.sentences as { label: string }[]).map((s) => s.label)).toEqual([
      "supported",
      "contradictory",
      "not_applicable",
      "unsupported",
    ]);
    expect(promptOf(judge, 0)).toContain('result of get_weather: {"sky":"sunny","celsius":21}');
    expect(promptOf(judge, 0)).toContain("2. It is 25 degrees.");
  });

  it("checks in-between answers too when evaluate_intermediate_nl_responses is set", async () => {
    const judge = new ScriptedModel({ steps: [ScriptedModel.text("1: unsupported\n2: supported")] });
    const actual = [
      turn("weather?", "Sunny.", {
        intermediateData: {
          toolUses: [],
          toolResponses: [],
          intermediateResponses: [["planner", [{ text: "Oslo has 3 airports." }]]],
        },
      }),
    ];
    const scores = await scoreEvalCase({
      evalCase: { evalId: "c", conversation: actual, creationTimestamp: 0 },
      actual,
      definitions: createEvalMetrics({ judgeModel: judge }),
      metrics: [
        {
          metricName: "hallucinations_v1",
          criterion: {
            threshold: 0.8,
            evaluate_intermediate_nl_responses: true,
            judge_model_options: { num_samples: 1 },
          },
        },
      ],
    });
    expect(scores.overallEvalMetricResults[0]!.score).toBe(0.5);
    expect(promptOf(judge, 0)).toContain("1. Oslo has 3 airports.");
  });
});

/** A judge that answers "valid" only when released, to observe how many calls are in flight. */
class GatedJudge extends BaseLlm {
  inFlight = 0;
  maxInFlight = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly arrivals: (() => void)[] = [];

  constructor() {
    super({ model: "gated" });
  }

  /** Resolves once `n` calls are waiting. */
  async waitingCalls(n: number): Promise<void> {
    while (this.waiters.length < n) await new Promise<void>((resolve) => this.arrivals.push(resolve));
  }

  releaseAll(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  override async *generateContentAsync(
    _request: LlmRequest,
    _stream?: boolean,
    options?: { signal?: AbortSignal },
  ): AsyncGenerator<LlmResponse> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise<void>((resolve, reject) => {
        this.waiters.push(resolve);
        options?.signal?.addEventListener("abort", () => reject(options.signal!.reason), { once: true });
        for (const a of this.arrivals.splice(0)) a();
      });
      yield { content: { role: "model", parts: [{ text: "valid" }] } };
    } finally {
      this.inFlight--;
    }
  }
}

describe("judge calls", () => {
  const evalCase: EvalCase = { evalId: "c", conversation: [turn("q", "a")], creationTimestamp: 0 };
  const v2 = {
    metricName: "final_response_match_v2",
    criterion: { threshold: 0.5, judge_model_options: { num_samples: 5 } },
  };

  it("stay within the concurrency bound", async () => {
    const judge = new GatedJudge();
    const run = scoreEvalCase({
      evalCase,
      actual: [turn("q", "a")],
      definitions: createEvalMetrics({ judgeModel: judge, judgeConcurrency: 2 }),
      metrics: [v2],
    });
    for (let released = 0; released < 5; ) {
      await judge.waitingCalls(Math.min(2, 5 - released));
      expect(judge.inFlight).toBeLessThanOrEqual(2);
      released += Math.min(2, 5 - released);
      judge.releaseAll();
    }
    expect((await run).overallEvalMetricResults[0]!.score).toBe(1);
    expect(judge.maxInFlight).toBe(2);
  });

  it("are cancelled by the run's signal: the run rejects, it is not a verdict", async () => {
    const judge = new GatedJudge();
    const controller = new AbortController();
    const run = scoreEvalCase({
      evalCase,
      actual: [turn("q", "a")],
      definitions: createEvalMetrics({ judgeModel: judge, judgeConcurrency: 2 }),
      metrics: [v2],
      signal: controller.signal,
    });
    await judge.waitingCalls(2);
    controller.abort(new Error("stop"));
    await expect(run).rejects.toThrow("stop");
    expect(judge.inFlight).toBe(0);
  });
});
