import { describe, expect, it } from "@jest/globals";
import { createEvent, type Content } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  createEvalMetrics,
  invocationsFromSession,
  rouge1F1,
  tokenize,
  type Invocation,
} from "../../src/evals/index.js";

const user = (text: string): Content => ({ role: "user", parts: [{ text }] });
const inv = (final: string, toolUses: { name: string; args: Record<string, unknown> }[] = []): Invocation => ({
  invocationId: "i",
  userContent: user("q"),
  finalResponse: { role: "model", parts: [{ text: final }] },
  intermediateData: { toolUses, toolResponses: [], intermediateResponses: [] },
  creationTimestamp: 0,
});

describe("rouge1F1", () => {
  it("scores unigram overlap as F1", () => {
    // Porter stems, as rouge_score's: "sunny" -> "sunni".
    expect(tokenize("It's SUNNY, 21°C in Oslo!")).toEqual(["it", "s", "sunni", "21", "c", "in", "oslo"]);
    expect(rouge1F1("the weather is sunny", "the weather is sunny")).toBe(1);
    // 3 of 4 candidate tokens match 3 of 5 reference tokens: P=.75, R=.6
    expect(rouge1F1("the sky is blue", "the sky is very grey")).toBeCloseTo((2 * 0.75 * 0.6) / 1.35, 10);
    expect(rouge1F1("completely different", "the weather is sunny")).toBe(0);
    // repeated tokens count once per occurrence in the reference
    expect(rouge1F1("sunny sunny sunny", "sunny day")).toBeCloseTo((2 * (1 / 3) * 0.5) / (1 / 3 + 0.5), 10);
    expect(rouge1F1("", "")).toBe(1);
    expect(rouge1F1("", "x")).toBe(0);
  });
});

describe("eval metrics", () => {
  const metrics = createEvalMetrics();
  const trajectory = metrics.get("tool_trajectory_avg_score")!;
  const response = metrics.get("response_match_score")!;

  it("tool_trajectory_avg_score: 1 only for the same calls with the same args in the same order", async () => {
    const a = { name: "get_weather", args: { city: "Oslo", days: 2 } };
    const b = { name: "get_time", args: {} };
    const score = async (actual: Invocation, expected: Invocation) => {
      const verdict = await trajectory.evaluate(actual, expected);
      return "score" in verdict ? verdict.score : verdict.notEvaluated;
    };
    expect(await score(inv("x", [a, b]), inv("x", [a, b]))).toBe(1);
    expect(await score(inv("x", [{ name: "get_weather", args: { days: 2, city: "Oslo" } }]), inv("x", [a]))).toBe(1);
    expect(await score(inv("x", [b, a]), inv("x", [a, b]))).toBe(0);
    expect(await score(inv("x", [{ name: "get_weather", args: { city: "Bergen", days: 2 } }]), inv("x", [a]))).toBe(0);
    expect(await score(inv("x", [a]), inv("x", [a, b]))).toBe(0);
    expect(await score(inv("x"), inv("y"))).toBe(1);
  });

  it("response_match_score: ROUGE-1 F1 of the final responses", async () => {
    expect(await response.evaluate(inv("Sunny in Oslo"), inv("sunny in oslo"))).toEqual({ score: 1 });
    const partial = await response.evaluate(inv("It is sunny"), inv("It is raining"));
    expect(partial).toEqual({ score: rouge1F1("It is sunny", "It is raining") });
  });

  it("judged metrics are unavailable without a judge, with a message saying how to enable them", async () => {
    const judgedMetric = metrics.get("final_response_match_v2")!;
    expect(judgedMetric.unavailableReason).toMatch(/judge model.*judgeModel/);
    expect(await judgedMetric.evaluate(inv("a"), inv("a"))).toEqual({
      notEvaluated: expect.stringContaining("needs a judge model"),
    });
    expect(metrics.get("response_evaluation_score")!.unavailableReason).toBeDefined();
  });

  it("judged metrics ask the judge model and read its verdict (one sample per call through evaluate)", async () => {
    // `evaluate` uses the default criterion: ADK's 5 samples per verdict.
    const judge = new ScriptedModel({
      steps: [
        ...["valid", "valid", "Invalid.", "valid", "invalid"].map((t) => ScriptedModel.text(t)),
        ...["4", "5", "4", "3", "4"].map((t) => ScriptedModel.text(t)),
        ...Array.from({ length: 5 }, () => ScriptedModel.text("no idea")),
      ],
    });
    const withJudge = createEvalMetrics({ judgeModel: judge });
    const v2 = withJudge.get("final_response_match_v2")!;
    expect(v2.unavailableReason).toBeUndefined();
    // 3 valid against 2 invalid: the majority says valid.
    expect(await v2.evaluate(inv("Sunny"), inv("It is sunny"))).toMatchObject({
      score: 1,
      details: { votes: { valid: 3, invalid: 2 } },
    });
    expect(judge.requests[0]!.contents[0]!.parts![0]!.text).toContain("Reference answer: It is sunny");
    const rating = withJudge.get("response_evaluation_score")!;
    // The mean of the five ratings: (4 + 5 + 4 + 3 + 4) / 5.
    expect(await rating.evaluate(inv("Sunny"), inv("x"))).toMatchObject({ score: 4 });
    const unrated = await rating.evaluate(inv("Sunny"), inv("x"));
    expect("notEvaluated" in unrated && unrated.notEvaluated).toContain("no 1-5 rating");
    judge.assertConsumed();
  });
});

describe("invocationsFromSession", () => {
  it("turns a session's events into ADK invocations: one per user message, tools and final answer", () => {
    const events = [
      createEvent({ invocationId: "e-1", author: "user", content: user("weather in Oslo?"), timestamp: 10 }),
      createEvent({
        invocationId: "e-1",
        author: "agent",
        content: {
          role: "model",
          parts: [
            { text: "Let me check." },
            { functionCall: { id: "c1", name: "get_weather", args: { city: "Oslo" } } },
          ],
        },
      }),
      createEvent({
        invocationId: "e-1",
        author: "agent",
        content: {
          role: "user",
          parts: [{ functionResponse: { id: "c1", name: "get_weather", response: { sky: "sunny" } } }],
        },
      }),
      createEvent({ invocationId: "e-1", author: "agent", content: { role: "model", parts: [{ text: "Sunny." }] } }),
      createEvent({ invocationId: "e-2", author: "user", content: user("thanks"), timestamp: 20 }),
      createEvent({
        invocationId: "e-2",
        author: "agent",
        content: { role: "model", parts: [{ text: "You're welcome." }] },
      }),
    ];
    const conversation = invocationsFromSession(events);
    expect(conversation).toHaveLength(2);
    expect(conversation[0]).toEqual({
      invocationId: "e-1",
      userContent: user("weather in Oslo?"),
      finalResponse: { role: "model", parts: [{ text: "Sunny." }] },
      intermediateData: {
        toolUses: [{ id: "c1", name: "get_weather", args: { city: "Oslo" } }],
        toolResponses: [{ id: "c1", name: "get_weather", response: { sky: "sunny" } }],
        intermediateResponses: [["agent", [{ text: "Let me check." }]]],
      },
      creationTimestamp: 10,
    });
    expect(conversation[1]!.finalResponse).toEqual({ role: "model", parts: [{ text: "You're welcome." }] });
    expect(conversation[1]!.creationTimestamp).toBe(20);
  });
});
