import { describe, expect, it } from "@jest/globals";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  createEvalMetrics,
  evalMetricsFromConfig,
  EvalStatus,
  InvalidEvalConfigError,
  loadEvalConfig,
  parseEvalConfig,
  parseEvalSet,
  parseEvalSetResult,
  scoreEvalCase,
  toolUsesOf,
  UnknownMetricError,
  type EvalCase,
  type Invocation,
} from "../../src/evals/index.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "adk");
const readJson = async (name: string): Promise<unknown> =>
  JSON.parse(await readFile(join(fixtures, name), "utf8")) as unknown;

const turn = (user: string, answer: string, calls: { name: string; args: Record<string, unknown> }[] = []) =>
  ({
    invocationId: "",
    userContent: { role: "user", parts: [{ text: user }] },
    finalResponse: { role: "model", parts: [{ text: answer }] },
    intermediateData: { toolUses: calls, toolResponses: [], intermediateResponses: [] },
    creationTimestamp: 0,
  }) satisfies Invocation;

/** The error a config parse throws, for its class and message. */
function configError(raw: unknown): Error {
  try {
    parseEvalConfig(raw);
  } catch (error) {
    return error as Error;
  }
  throw new Error("the config was accepted");
}

describe("ADK eval formats", () => {
  it("loads an eval set as ADK Python writes it: snake_case, nulls for unset fields, scenario and events forms", async () => {
    const set = parseEvalSet(await readJson("thermostat.evalset.json"));
    expect(set.evalSetId).toBe("thermostat_set");
    expect(set.description).toBeUndefined();
    const [heat, plan, events] = set.evalCases;
    expect(heat!.conversation).toHaveLength(1);
    expect(heat!.conversation![0]!.userContent.parts![0]!.text).toBe("Set the kitchen to 21 degrees.");
    expect(toolUsesOf(heat!.conversation![0]!)).toEqual([
      { id: null, name: "set_temperature", args: { room: "kitchen", celsius: 21 } },
    ]);
    expect(heat!.sessionInput).toEqual({ appName: "thermostat", userId: "eval_user", state: { units: "metric" } });
    expect(heat!.rubrics).toEqual([
      { rubricId: "confirms", rubricContent: { textProperty: "The answer confirms the new temperature." } },
    ]);
    expect(plan!.conversation).toBeUndefined();
    expect(plan!.conversationScenario).toEqual({
      startingPrompt: "I want it warm when I get home.",
      conversationPlan: "Ask to heat the living room to 22 degrees at 18:00. Once confirmed, say thanks and finish.",
      userPersona: "NOVICE",
    });
    expect(toolUsesOf(events!.conversation![0]!)).toEqual([
      { id: "c1", name: "get_temperature", args: { room: "bedroom" } },
    ]);
  });

  it("refuses a case with both a conversation and a scenario, naming the field", () => {
    const result = (() => {
      try {
        return parseEvalSet({
          eval_set_id: "s",
          eval_cases: [
            {
              eval_id: "c",
              conversation: [],
              conversation_scenario: { starting_prompt: "hi", conversation_plan: "p" },
            },
          ],
        });
      } catch (error) {
        return error as { issues: { path: PropertyKey[]; message: string }[] };
      }
    })() as { issues: { path: PropertyKey[]; message: string }[] };
    expect(result.issues[0]!.path).toEqual(["evalCases", 0, "conversation_scenario"]);
    expect(result.issues[0]!.message).toContain("not both");
  });

  it("reads no field of an eval set from a __proto__ key: it stays an ordinary key", () => {
    // As JSON.parse makes it: an own `__proto__` key whose value holds the required fields.
    const raw = JSON.parse('{"__proto__":{"evalSetId":"s","evalCases":[]}}') as unknown;
    expect(() => parseEvalSet(raw)).toThrow(/evalSetId/);
    const set = parseEvalSet(JSON.parse('{"eval_set_id":"s","eval_cases":[],"__proto__":{"name":"n"}}')) as unknown;
    expect(Object.getPrototypeOf(set)).toBe(Object.prototype);
    expect((set as { name?: string }).name).toBeUndefined();
  });

  it("loads an eval result as ADK Python's results manager writes it (a JSON string of the JSON)", async () => {
    const raw = JSON.parse(await readFile(join(fixtures, "thermostat.evalset_result.json"), "utf8")) as unknown;
    expect(typeof raw).toBe("string");
    const result = parseEvalSetResult(raw);
    expect(result.evalSetResultId).toBe("thermostat_thermostat_set_1764000100.0");
    const [caseResult] = result.evalCaseResults;
    expect(caseResult!.finalEvalStatus).toBe(EvalStatus.PASSED);
    expect(caseResult!.overallEvalMetricResults[0]).toMatchObject({
      metricName: "tool_trajectory_avg_score",
      score: 1,
      evalStatus: EvalStatus.PASSED,
    });
    const row = caseResult!.evalMetricResultPerInvocation[0]!;
    expect(row.expectedInvocation).toBeUndefined();
    expect(toolUsesOf(row.actualInvocation)[0]!.name).toBe("set_temperature");
  });

  it("loads a test_config.json with bare thresholds and criterion objects, and maps it to the run's metrics", async () => {
    const config = await loadEvalConfig(join(fixtures, "test_config.json"));
    expect(config.userSimulatorConfig).toMatchObject({ model: "gemini-2.5-flash", maxAllowedInvocations: 6 });
    const metrics = evalMetricsFromConfig(config);
    expect(metrics.map((m) => [m.metricName, m.threshold])).toEqual([
      ["tool_trajectory_avg_score", 1],
      ["response_match_score", 0.6],
      ["final_response_match_v2", 0.5],
      ["rubric_based_final_response_quality_v1", 0.8],
      ["hallucinations_v1", 0.8],
      ["per_turn_user_simulator_quality_v1", 1],
    ]);
    expect(metrics[0]!.criterion).toEqual({ threshold: 1, match_type: "IN_ORDER" });
    expect(metrics[1]!.criterion).toBeUndefined();
  });

  it("refuses unknown metrics and bad criteria with an error naming the field", () => {
    const unknown = configError({ criteria: { tool_trajectory_avg_score: 1, response_quality: 0.5 } });
    expect(unknown).toBeInstanceOf(UnknownMetricError);
    expect(unknown.message).toMatch(/^criteria\.response_quality: Unknown eval metric "response_quality"/);
    const cases: [unknown, RegExp][] = [
      [
        { criteria: { tool_trajectory_avg_score: { threshold: 1, match_type: "SOMETIMES" } } },
        /^criteria\.tool_trajectory_avg_score\.match_type: /,
      ],
      [
        { criteria: { tool_trajectory_avg_score: { threshold: 1, ignore_args: "yes" } } },
        /^criteria\.tool_trajectory_avg_score\.ignore_args: /,
      ],
      [
        { criteria: { response_match_score: 1.5 } },
        /^criteria\.response_match_score\.threshold: 1\.5 is outside the metric's range \[0, 1\]/,
      ],
      [{ criteria: { response_match_score: "high" } }, /^criteria\.response_match_score: /],
      [
        { criteria: { final_response_match_v2: { threshold: 0.5, judge_model_options: { num_samples: 0 } } } },
        /^criteria\.final_response_match_v2\.judge_model_options\.num_samples: /,
      ],
      [
        { criteria: { rubric_based_tool_use_quality_v1: { threshold: 1, rubrics: [{ rubric_id: "r" }] } } },
        /^criteria\.rubric_based_tool_use_quality_v1\.rubrics\.0\.rubric_content: /,
      ],
      [
        {
          criteria: {
            tool_trajectory_avg_score: {
              threshold: 1,
              arg_matchers: { "*": { when: { type: "regex", pattern: "(" } } },
            },
          },
        },
        /^criteria\.tool_trajectory_avg_score\.arg_matchers\.\*\.when/,
      ],
      [
        { criteria: { mine: 1 }, custom_metrics: { mine: { code_config: { name: "app.m.f", args: [1] } } } },
        /^custom_metrics\.mine\.code_config\.args: args are not supported/,
      ],
      [
        { criteria: {}, custom_metrics: { mine: { code_config: { name: "app.m.f" } } } },
        /^custom_metrics\.mine: no criterion names it/,
      ],
      [{ criteria: [] }, /^criteria: /],
    ];
    for (const [raw, message] of cases) {
      const error = configError(raw);
      expect(error).toBeInstanceOf(InvalidEvalConfigError);
      expect(error.message).toMatch(message);
      expect((error as InvalidEvalConfigError).code).toBe("INVALID_EVAL_CONFIG");
    }
    // A custom metric's criterion is its own business: any name listed in custom_metrics is accepted.
    expect(
      parseEvalConfig({ criteria: { mine: 0.5 }, custom_metrics: { mine: { code_config: { name: "a.b.c" } } } }),
    ).toMatchObject({ criteria: { mine: 0.5 } });
  });
});

describe("scoreEvalCase", () => {
  const expected = [
    turn("Heat the kitchen", "Kitchen set to 21 degrees", [{ name: "set_temperature", args: { room: "kitchen" } }]),
  ];
  const evalCase: EvalCase = { evalId: "c", conversation: expected, creationTimestamp: 0 };

  it("applies the criterion: IN_ORDER passes with an extra call where the default EXACT fails", async () => {
    const actual = [
      turn("Heat the kitchen", "Kitchen set to 21 degrees", [
        { name: "get_temperature", args: { room: "kitchen" } },
        { name: "set_temperature", args: { room: "kitchen" } },
      ]),
    ];
    const definitions = createEvalMetrics();
    const exact = await scoreEvalCase({
      evalCase,
      actual,
      definitions,
      metrics: [{ metricName: "tool_trajectory_avg_score", threshold: 1 }],
    });
    expect(exact.overallEvalMetricResults[0]).toMatchObject({ score: 0, evalStatus: EvalStatus.FAILED });
    const inOrder = await scoreEvalCase({
      evalCase,
      actual,
      definitions,
      metrics: [{ metricName: "tool_trajectory_avg_score", criterion: { threshold: 1, match_type: "IN_ORDER" } }],
    });
    expect(inOrder.overallEvalMetricResults[0]).toMatchObject({
      threshold: 1,
      score: 1,
      evalStatus: EvalStatus.PASSED,
      criterion: { threshold: 1, match_type: "IN_ORDER" },
    });
    expect(inOrder.finalEvalStatus).toBe(EvalStatus.PASSED);
  });

  it("marks a metric that could not run NOT_EVALUATED (not FAILED), and an ungated figure INFORMATIONAL", async () => {
    const scores = await scoreEvalCase({
      evalCase,
      actual: expected,
      definitions: createEvalMetrics(),
      metrics: [
        { metricName: "response_match_score", threshold: 0.8 },
        { metricName: "final_response_match_v2", threshold: 0.5 },
        { metricName: "tool_call_count" },
        { metricName: "model_call_count" },
      ],
    });
    const [match, judged, tools, models] = scores.overallEvalMetricResults;
    expect(match).toMatchObject({ score: 1, evalStatus: EvalStatus.PASSED });
    expect(judged!.evalStatus).toBe(EvalStatus.NOT_EVALUATED);
    expect(judged!.details!.reason).toMatch(/needs a judge model/);
    expect(tools).toMatchObject({ score: 1, evalStatus: EvalStatus.INFORMATIONAL });
    expect(tools!.threshold).toBeUndefined();
    expect(models!.evalStatus).toBe(EvalStatus.NOT_EVALUATED);
    expect(models!.details!.reason).toMatch(/no usage record/);
    expect(scores.finalEvalStatus).toBe(EvalStatus.PASSED);
    const only = await scoreEvalCase({
      evalCase,
      actual: expected,
      definitions: createEvalMetrics(),
      metrics: [{ metricName: "final_response_match_v2", threshold: 0.5 }],
    });
    expect(only.finalEvalStatus).toBe(EvalStatus.NOT_EVALUATED);
  });

  it("scores a scenario case without reference turns: reference metrics are NOT_EVALUATED, the judge still runs", async () => {
    const judge = new ScriptedModel({ steps: [ScriptedModel.text("valid")] });
    const scenarioCase: EvalCase = {
      evalId: "s",
      conversationScenario: {
        startingPrompt: "Heat the kitchen",
        conversationPlan: "Ask for 21 degrees, then finish.",
      },
      creationTimestamp: 0,
    };
    const actual = [turn("Heat the kitchen", "To what temperature?"), turn("21 degrees please </finished>", "Done.")];
    const scores = await scoreEvalCase({
      evalCase: scenarioCase,
      actual,
      definitions: createEvalMetrics({ judgeModel: judge }),
      metrics: [
        { metricName: "response_match_score", threshold: 0.5 },
        {
          metricName: "per_turn_user_simulator_quality_v1",
          criterion: { threshold: 1, judge_model_options: { num_samples: 1 } },
        },
      ],
    });
    const [match, simulator] = scores.overallEvalMetricResults;
    expect(match!.evalStatus).toBe(EvalStatus.NOT_EVALUATED);
    expect(match!.details!.reason).toMatch(/conversation_scenario/);
    expect(simulator).toMatchObject({ score: 1, evalStatus: EvalStatus.PASSED });
    expect(scores.evalMetricResultPerInvocation).toHaveLength(2);
    expect(scores.evalMetricResultPerInvocation[0]!.expectedInvocation).toBeUndefined();
    expect(judge.requests[0]!.contents[0]!.parts![0]!.text).toContain("The user's latest message: 21 degrees please");
  });

  it("fails the case when the agent run failed, every metric NOT_EVALUATED with the reason", async () => {
    const scores = await scoreEvalCase({
      evalCase,
      actual: [],
      definitions: createEvalMetrics(),
      metrics: [{ metricName: "response_match_score", threshold: 0.5 }],
      failure: "the agent run failed: boom",
    });
    expect(scores.finalEvalStatus).toBe(EvalStatus.FAILED);
    expect(scores.overallEvalMetricResults[0]).toMatchObject({
      evalStatus: EvalStatus.NOT_EVALUATED,
      details: { reason: "the agent run failed: boom" },
    });
    expect(scores.evalMetricResultPerInvocation[0]!.evalMetricResults[0]!.evalStatus).toBe(EvalStatus.NOT_EVALUATED);
  });
});
