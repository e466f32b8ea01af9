import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createModelRegistry } from "@agentkit/models";
import { FakeAnthropicServer, message } from "../../../models/test/fixtures/anthropic-server.js";
import { candidateResponse, FakeGeminiServer } from "../../../models/test/fixtures/gemini-server.js";
import { completion, FakeOpenAIServer } from "../../../models/test/fixtures/openai-server.js";
import { createEvalMetrics, EvalStatus, scoreEvalCase, type EvalCase, type Invocation } from "../../src/evals/index.js";

const turn = (user: string, answer: string): Invocation => ({
  invocationId: "",
  userContent: { role: "user", parts: [{ text: user }] },
  finalResponse: { role: "model", parts: [{ text: answer }] },
  intermediateData: {
    toolUses: [{ id: "c1", name: "get_weather", args: { city: "Oslo" } }],
    toolResponses: [{ id: "c1", name: "get_weather", response: { sky: "sunny" } }],
    intermediateResponses: [],
  },
  creationTimestamp: 0,
});

describe("judges through the model adapters (fake provider servers)", () => {
  let openai: FakeOpenAIServer;
  let anthropic: FakeAnthropicServer;
  let gemini: FakeGeminiServer;
  let registry: ReturnType<typeof createModelRegistry>;

  beforeEach(async () => {
    openai = new FakeOpenAIServer();
    anthropic = new FakeAnthropicServer();
    gemini = new FakeGeminiServer();
    const [openaiUrl, anthropicUrl, geminiUrl] = await Promise.all([openai.start(), anthropic.start(), gemini.start()]);
    registry = createModelRegistry({
      env: {
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: openaiUrl,
        ANTHROPIC_API_KEY: "ak-test",
        ANTHROPIC_BASE_URL: anthropicUrl,
        GEMINI_API_KEY: "gk-test",
        GOOGLE_GEMINI_BASE_URL: geminiUrl,
      },
      retry: false,
    });
  });
  afterEach(async () => {
    await registry.close();
    await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
  });

  it("runs each criterion's judge_model on its provider and keeps the raw verdicts", async () => {
    openai.reply(
      { kind: "json", body: completion({ role: "assistant", content: "Same facts.\nvalid" }) },
      { kind: "json", body: completion({ role: "assistant", content: "invalid" }) },
      { kind: "json", body: completion({ role: "assistant", content: "valid" }) },
    );
    anthropic.reply({
      kind: "json",
      body: message([{ type: "text", text: "1: supported - the tool says sunny\n2: unsupported - no wind data" }]),
    });
    gemini.reply({ kind: "json", body: candidateResponse([{ text: "mentions_city: yes - names Oslo" }]) });

    const evalCase: EvalCase = {
      evalId: "c",
      conversation: [turn("weather in Oslo?", "Sunny in Oslo.")],
      creationTimestamp: 0,
    };
    const scores = await scoreEvalCase({
      evalCase,
      actual: [turn("weather in Oslo?", "It is sunny in Oslo. The wind is calm.")],
      definitions: createEvalMetrics({ modelRegistry: registry }),
      metrics: [
        {
          metricName: "final_response_match_v2",
          criterion: { threshold: 0.5, judge_model_options: { judge_model: "gpt-4o-mini", num_samples: 3 } },
        },
        {
          metricName: "hallucinations_v1",
          criterion: {
            threshold: 0.5,
            judge_model_options: { judge_model: "claude-3-5-haiku-latest", num_samples: 1 },
          },
        },
        {
          metricName: "rubric_based_final_response_quality_v1",
          criterion: {
            threshold: 1,
            // No judge_model: ADK's default judge, gemini-2.5-flash, through the registry.
            judge_model_options: { num_samples: 1 },
            rubrics: [{ rubric_id: "mentions_city", rubric_content: { text_property: "The answer names the city." } }],
          },
        },
      ],
    });
    const [match, hallucinations, rubric] = scores.overallEvalMetricResults;
    expect(match).toMatchObject({ score: 1, evalStatus: EvalStatus.PASSED });
    expect(hallucinations).toMatchObject({ score: 0.5, evalStatus: EvalStatus.PASSED });
    expect(rubric).toMatchObject({ score: 1, evalStatus: EvalStatus.PASSED });
    expect(scores.finalEvalStatus).toBe(EvalStatus.PASSED);

    const perTurn = scores.evalMetricResultPerInvocation[0]!.evalMetricResults;
    expect((perTurn[0]!.details!.judgeSamples as { raw: string }[]).map((s) => s.raw).sort()).toEqual([
      "Same facts.\nvalid",
      "invalid",
      "valid",
    ]);
    expect(perTurn[1]!.details!.judgeSamples).toEqual([
      { raw: "1: supported - the tool says sunny\n2: unsupported - no wind data" },
    ]);
    // The prompts reached each provider in its own wire format.
    expect(openai.requests).toHaveLength(3);
    expect(JSON.stringify(openai.requests[0]!.body)).toContain("Reference answer: Sunny in Oslo.");
    expect(JSON.stringify(anthropic.requests[0]!.body)).toContain("2. The wind is calm.");
    expect(gemini.generateRequests).toHaveLength(1);
    expect(JSON.stringify(gemini.generateRequests[0]!.body)).toContain("mentions_city: The answer names the city.");
  });

  it("is NOT_EVALUATED when the judge's provider fails, naming the failure", async () => {
    openai.reply({
      kind: "json",
      status: 400,
      body: { error: { message: "model not found", type: "invalid_request_error" } },
    });
    const evalCase: EvalCase = { evalId: "c", conversation: [turn("q", "a")], creationTimestamp: 0 };
    const scores = await scoreEvalCase({
      evalCase,
      actual: [turn("q", "a")],
      definitions: createEvalMetrics({ modelRegistry: registry }),
      metrics: [
        {
          metricName: "final_response_match_v2",
          criterion: { threshold: 0.5, judge_model_options: { judge_model: "gpt-4o-mini", num_samples: 1 } },
        },
      ],
    });
    expect(scores.overallEvalMetricResults[0]!.evalStatus).toBe(EvalStatus.NOT_EVALUATED);
    expect(scores.overallEvalMetricResults[0]!.details!.reason).toMatch(
      /^the judge model gpt-4o-mini failed: .*model not found/,
    );
    expect(scores.finalEvalStatus).toBe(EvalStatus.NOT_EVALUATED);
  });
});
