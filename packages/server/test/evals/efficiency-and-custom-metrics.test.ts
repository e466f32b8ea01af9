import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError, InMemoryRunner, LlmAgent, type UsageRollup } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  createEvalMetrics,
  evalMetricsFromConfig,
  EvalStatus,
  parseEvalConfig,
  runEvalSet,
  scoreEvalCase,
  withCustomMetrics,
  type EvalCase,
  type Invocation,
} from "../../src/evals/index.js";

const usage = (
  model: string,
  prompt: number,
  candidates: number,
  modelCalls: number,
  durationMs: number,
): UsageRollup => {
  const tokens = { prompt, candidates, cached: 0, thoughts: 0, toolUsePrompt: 0, total: prompt + candidates };
  return { tokens, modelCalls, toolCalls: 0, durationMs, models: { [model]: { tokens, modelCalls } } };
};

const turn = (answer: string, extra: Partial<Invocation> = {}): Invocation => ({
  invocationId: "",
  userContent: { role: "user", parts: [{ text: "q" }] },
  finalResponse: { role: "model", parts: [{ text: answer }] },
  intermediateData: {
    toolUses: [
      { name: "a", args: {} },
      { name: "b", args: {} },
    ],
    toolResponses: [],
    intermediateResponses: [],
  },
  creationTimestamp: 0,
  ...extra,
});

describe("efficiency metrics", () => {
  const actual = [
    turn("one", { usage: usage("house-model", 1000, 500, 2, 1200) }),
    turn("two", { usage: usage("house-model", 3000, 100, 1, 800), duration: 0.5 }),
  ];
  const evalCase: EvalCase = { evalId: "c", conversation: actual, creationTimestamp: 0 };
  // $1 per million input tokens, $2 per million output tokens.
  const definitions = createEvalMetrics({ prices: { "house-model": { inputPerMillion: 1, outputPerMillion: 2 } } });

  it("sums tool calls, model calls, tokens, latency and cost over the turns: informational without a threshold", async () => {
    const scores = await scoreEvalCase({
      evalCase,
      actual,
      definitions,
      metrics: ["tool_call_count", "model_call_count", "token_count", "latency_seconds", "cost_usd"].map(
        (metricName) => ({
          metricName,
        }),
      ),
    });
    const figures = scores.overallEvalMetricResults.map((r) => [r.metricName, r.score, r.evalStatus]);
    expect(figures.slice(0, 4)).toEqual([
      ["tool_call_count", 4, EvalStatus.INFORMATIONAL],
      ["model_call_count", 3, EvalStatus.INFORMATIONAL],
      ["token_count", 4600, EvalStatus.INFORMATIONAL],
      // Turn 1 from the usage record (1.2 s), turn 2 from its measured duration (0.5 s).
      ["latency_seconds", 1.7, EvalStatus.INFORMATIONAL],
    ]);
    // (1000 + 3000) input at $1/M + (500 + 100) output at $2/M = 0.004 + 0.0012.
    expect(scores.overallEvalMetricResults[4]!.score).toBeCloseTo(0.0052, 12);
    expect(scores.evalMetricResultPerInvocation[0]!.evalMetricResults[4]!.score).toBeCloseTo(0.002, 12);
    // Only informational figures: nothing passed or failed.
    expect(scores.finalEvalStatus).toBe(EvalStatus.NOT_EVALUATED);
  });

  it("gates at or below a threshold, and cannot price an unknown model", async () => {
    const scores = await scoreEvalCase({
      evalCase,
      actual,
      definitions,
      metrics: [
        { metricName: "tool_call_count", threshold: 4 },
        { metricName: "token_count", threshold: 4000 },
      ],
    });
    expect(scores.overallEvalMetricResults.map((r) => r.evalStatus)).toEqual([EvalStatus.PASSED, EvalStatus.FAILED]);
    expect(scores.finalEvalStatus).toBe(EvalStatus.FAILED);
    const unpriced = await scoreEvalCase({
      evalCase,
      actual,
      definitions: createEvalMetrics(),
      metrics: [{ metricName: "cost_usd", threshold: 1 }],
    });
    expect(unpriced.overallEvalMetricResults[0]!.evalStatus).toBe(EvalStatus.NOT_EVALUATED);
    expect(unpriced.overallEvalMetricResults[0]!.details!.reason).toMatch(/no price for house-model/);
  });

  it("reads the usage the runner records when the eval runs the agent", async () => {
    const model = new ScriptedModel({
      model: "house-model",
      steps: [
        ScriptedModel.text("Sunny.", {
          usageMetadata: { promptTokenCount: 200, candidatesTokenCount: 50, totalTokenCount: 250 },
        }),
      ],
    });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "weather", model }), appName: "weather" });
    try {
      const result = await runEvalSet({
        runner,
        sessionService: runner.sessionService,
        appName: "weather",
        evalSet: {
          evalSetId: "s",
          evalCases: [{ evalId: "c", conversation: [turn("Sunny.")], creationTimestamp: 0 }],
          creationTimestamp: 0,
        },
        metrics: [
          { metricName: "token_count", threshold: 300 },
          { metricName: "model_call_count" },
          { metricName: "cost_usd" },
        ],
        definitions,
      });
      const [tokens, calls, cost] = result.evalCaseResults[0]!.overallEvalMetricResults;
      expect(tokens).toMatchObject({ score: 250, evalStatus: EvalStatus.PASSED });
      expect(calls).toMatchObject({ score: 1, evalStatus: EvalStatus.INFORMATIONAL });
      // 200 input at $1/M + 50 output at $2/M.
      expect(cost!.score).toBeCloseTo(0.0003, 12);
    } finally {
      await runner.close();
    }
  });
});

describe("custom metrics (custom_function_path)", () => {
  let agentsDir = "";
  let appDir = "";

  beforeAll(async () => {
    agentsDir = await mkdtemp(join(tmpdir(), "agentkit-custom-metric-"));
    appDir = join(agentsDir, "thermo");
    await mkdir(join(appDir, "evals"), { recursive: true });
    await mkdir(join(agentsDir, ".agentkit"), { recursive: true });
    await writeFile(
      join(appDir, "evals", "brevity.mjs"),
      [
        "// Share of turns answered in at most `max_words` words (a criterion field).",
        "export function brevity({ actual, criterion }) {",
        "  const max = criterion.max_words ?? 3;",
        "  const perInvocation = actual.map((t) => {",
        "    const words = t.finalResponse.parts.map((p) => p.text).join(' ').split(/\\s+/).length;",
        "    return { score: words <= max ? 1 : 0, details: { words } };",
        "  });",
        "  return { perInvocation };",
        "}",
        "export async function broken() { throw new Error('metric bug'); }",
      ].join("\n"),
    );
    await writeFile(join(agentsDir, ".agentkit", "evil.mjs"), "export function f() { return 1; }");
  });
  afterAll(async () => {
    await rm(agentsDir, { recursive: true, force: true });
  });

  it("loads the function from the app folder (ADK's dotted path or file#export) and scores with it", async () => {
    const config = parseEvalConfig({
      criteria: { brevity: { threshold: 0.5, max_words: 2 }, response_match_score: 0.1 },
      custom_metrics: {
        brevity: { code_config: { name: "thermo.evals.brevity.brevity" }, description: "Short answers." },
      },
    });
    const metrics = evalMetricsFromConfig(config);
    expect(metrics[0]).toEqual({
      metricName: "brevity",
      threshold: 0.5,
      criterion: { threshold: 0.5, max_words: 2 },
      customFunctionPath: "thermo.evals.brevity.brevity",
    });
    const definitions = await withCustomMetrics(createEvalMetrics(), config, { agentsDir, appDir });
    expect(definitions.get("brevity")!.info.description).toBe("Short answers.");
    const actual = [turn("Sunny today."), turn("It is going to rain all day.")];
    const scores = await scoreEvalCase({
      evalCase: { evalId: "c", conversation: actual, creationTimestamp: 0 },
      actual,
      definitions,
      metrics,
    });
    expect(scores.overallEvalMetricResults[0]).toMatchObject({
      metricName: "brevity",
      score: 0.5,
      evalStatus: EvalStatus.PASSED,
    });
    expect(scores.evalMetricResultPerInvocation[1]!.evalMetricResults[0]).toMatchObject({
      score: 0,
      details: { words: 7 },
    });

    const byFile = await withCustomMetrics(
      createEvalMetrics(),
      parseEvalConfig({
        criteria: { broken: 1 },
        custom_metrics: { broken: { code_config: { name: "./evals/brevity.mjs#broken" } } },
      }),
      { agentsDir, appDir, fromFile: join(appDir, "test_config.json") },
    );
    const failing = await scoreEvalCase({
      evalCase: { evalId: "c", conversation: actual, creationTimestamp: 0 },
      actual,
      definitions: byFile,
      metrics: [{ metricName: "broken", threshold: 1 }],
    });
    // A metric that throws could not run: NOT_EVALUATED with its error, not a crash or a FAIL.
    expect(failing.overallEvalMetricResults[0]).toMatchObject({
      evalStatus: EvalStatus.NOT_EVALUATED,
      details: { reason: "metric bug" },
    });
  });

  it("refuses code outside the app's folder, in hidden folders, and missing exports", async () => {
    const load = (name: string) =>
      withCustomMetrics(
        createEvalMetrics(),
        parseEvalConfig({ criteria: { m: 1 }, custom_metrics: { m: { code_config: { name } } } }),
        {
          agentsDir,
          appDir,
          fromFile: join(appDir, "test_config.json"),
        },
      );
    await expect(load("../../outside.mjs#f")).rejects.toThrow(ConfigurationError);
    await expect(load("../../outside.mjs#f")).rejects.toThrow(
      /custom_metrics\.m\.code_config\.name: .*leaves the agents directory/,
    );
    await expect(load("../.agentkit/evil.mjs#f")).rejects.toThrow(/custom_metrics\.m\.code_config\.name: .*hidden/);
    await expect(load("thermo.evals.brevity.nothing")).rejects.toThrow(/exports no function nothing/);
  });
});
