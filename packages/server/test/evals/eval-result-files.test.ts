import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FunctionTool, InMemorySessionService, LlmAgent, Runner } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import {
  createEvalMetrics,
  createFileEvalStore,
  EvalStatus,
  evalSetResultToAdkJson,
  parseEvalSet,
  parseEvalSetResult,
  runEvalSet,
  type EvalSetResult,
} from "../../src/evals/index.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "adk");

/*
 * ADK Python's result models (google.adk.evaluation: eval_result.py, eval_metrics.py,
 * eval_case.py, eval_rubrics.py), written down by hand as `model_dump_json()` writes them:
 * every field under its snake_case name, present (null when unset). Strict objects, so a
 * camelCase field name fails. Free-form values (arguments, tool results, state) are not checked.
 */
const SNAKE = /^[a-z][a-z0-9_]*$/;
const free = z.unknown();
const snakeRecord = z.record(z.string().regex(SNAKE, "a field name in snake_case"), z.unknown());
const status = z.union([z.literal(1), z.literal(2), z.literal(3)]);
const functionCall = z
  .looseObject({ id: z.string().nullish(), name: z.string(), args: free })
  .superRefine((value, ctx) => {
    for (const key of Object.keys(value))
      if (!SNAKE.test(key)) ctx.addIssue({ code: "custom", message: `field ${key} is not snake_case` });
  });
const functionResponse = z.looseObject({ id: z.string().nullish(), name: z.string(), response: free });
const part = z.strictObject({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thought_signature: z.string().nullish(),
  function_call: functionCall.nullish(),
  function_response: functionResponse.nullish(),
  inline_data: z
    .strictObject({ mime_type: z.string(), data: z.string(), display_name: z.string().nullish() })
    .nullish(),
  file_data: z.strictObject({ file_uri: z.string(), mime_type: z.string().nullish() }).nullish(),
  executable_code: snakeRecord.nullish(),
  code_execution_result: snakeRecord.nullish(),
  video_metadata: snakeRecord.nullish(),
});
const content = z.strictObject({ parts: z.array(part).nullish(), role: z.string().nullish() });
const rubric = z.strictObject({
  rubric_id: z.string(),
  rubric_content: z.strictObject({ text_property: z.string() }),
  description: z.string().nullish(),
  type: z.string().nullish(),
});
const invocation = z.strictObject({
  invocation_id: z.string(),
  user_content: content,
  final_response: content.nullable(),
  intermediate_data: z
    .union([
      z.strictObject({
        tool_uses: z.array(functionCall),
        tool_responses: z.array(functionResponse),
        intermediate_responses: z.array(z.tuple([z.string(), z.array(part)])),
      }),
      z.strictObject({
        invocation_events: z.array(z.strictObject({ author: z.string(), content: content.nullish() })),
      }),
    ])
    .nullable(),
  creation_timestamp: z.number(),
  rubrics: z.array(rubric).nullable(),
  app_details: snakeRecord.nullable(),
  // agentkit's extra fields (ADK's models allow extras).
  duration: z.number().optional(),
  usage: z
    .looseObject({ tokens: snakeRecord, model_calls: z.number(), tool_calls: z.number(), duration_ms: z.number() })
    .optional(),
});
const metricResult = z.strictObject({
  metric_name: z.string(),
  threshold: z.number().nullable(),
  criterion: snakeRecord.nullable(),
  custom_function_path: z.string().nullable(),
  score: z.number().nullable(),
  eval_status: status,
  details: z.looseObject({
    rubric_scores: z
      .array(z.strictObject({ rubric_id: z.string(), rationale: z.string().nullish(), score: z.number().nullish() }))
      .nullable(),
  }),
  informational: z.literal(true).optional(),
});
const adkEvalSetResult = z.strictObject({
  eval_set_result_id: z.string(),
  eval_set_result_name: z.string().nullable(),
  eval_set_id: z.string(),
  eval_case_results: z.array(
    z.strictObject({
      eval_set_file: z.string().nullable(),
      eval_set_id: z.string(),
      eval_id: z.string(),
      final_eval_status: status,
      eval_metric_results: z.null(),
      overall_eval_metric_results: z.array(metricResult),
      eval_metric_result_per_invocation: z.array(
        z.strictObject({
          actual_invocation: invocation,
          expected_invocation: invocation.nullable(),
          eval_metric_results: z.array(metricResult),
        }),
      ),
      session_id: z.string(),
      session_details: z
        .strictObject({
          id: z.string(),
          app_name: z.string(),
          user_id: z.string(),
          state: free,
          events: z.array(
            z.looseObject({ id: z.string(), author: z.string(), invocation_id: z.string(), timestamp: z.number() }),
          ),
          last_update_time: z.number(),
        })
        .nullable(),
      user_id: z.string().nullable(),
    }),
  ),
  creation_timestamp: z.number(),
});

/** Values whose keys are data, not field names: arguments, results, state, metadata. */
const FREE_FORM = new Set(["args", "response", "state", "state_delta", "custom_metadata", "details"]);

/** Field names anywhere outside free-form values; every one must be snake_case. */
function fieldNames(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) fieldNames(item, into);
  else if (value !== null && typeof value === "object")
    for (const [key, inner] of Object.entries(value)) {
      into.push(key);
      if (FREE_FORM.has(key)) continue;
      // Usage per model: keyed by model name.
      if (key === "models" && inner !== null && typeof inner === "object")
        for (const perModel of Object.values(inner)) fieldNames(perModel, into);
      else fieldNames(inner, into);
    }
  return into;
}

/** Pydantic writes unset fields as null; agentkit leaves some out. Compare what is set. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/** A result file as ADK Python's local results manager reads it: json.load, then model_validate_json. */
async function readAdkFile(file: string): Promise<unknown> {
  const outer = JSON.parse(await readFile(file, "utf8")) as unknown;
  expect(typeof outer).toBe("string");
  return JSON.parse(outer as string) as unknown;
}

describe("eval result files in ADK Python's shape", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentkit-eval-results-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("the validator accepts ADK's own file and refuses agentkit's older camelCase shape", async () => {
    const adk = await readAdkFile(join(fixtures, "support_refunds.evalset_result.json"));
    expect(adkEvalSetResult.safeParse(adk).error).toBeUndefined();
    const camel = parseEvalSetResult(adk);
    const refused = adkEvalSetResult.safeParse(JSON.parse(JSON.stringify(camel)));
    expect(refused.success).toBe(false);
    expect(refused.error!.issues.map((i) => i.message).join("\n")).toMatch(/Unrecognized key/);
  });

  it("writes a real run's result as ADK Python does: snake_case fields, nulls, a JSON string, ADK's status numbers", async () => {
    const refund = new FunctionTool({
      name: "refund_order",
      description: "Refunds an order",
      parameters: z.object({ orderId: z.string() }),
      execute: ({ orderId }) => ({ refundId: `R-${orderId}`, status: "refunded" }),
    });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("refund_order", { orderId: "A-17" }),
        ScriptedModel.text("Order A-17 is refunded."),
      ],
    });
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: "support",
      agent: new LlmAgent({ name: "support", model, tools: [refund] }),
      sessionService,
    });
    const evalSet = parseEvalSet({
      eval_set_id: "refunds",
      eval_cases: [
        {
          eval_id: "refund_one",
          session_input: { app_name: "support", user_id: "eval_user", state: { customerTier: "gold" } },
          conversation: [
            {
              user_content: { role: "user", parts: [{ text: "Refund order A-17." }] },
              final_response: { role: "model", parts: [{ text: "Order A-17 is refunded." }] },
              intermediate_data: { tool_uses: [{ name: "refund_order", args: { orderId: "A-17" } }] },
            },
          ],
        },
      ],
    });
    let result: EvalSetResult;
    try {
      result = await runEvalSet({
        runner,
        sessionService,
        appName: "support",
        evalSet,
        metrics: [
          { metricName: "tool_trajectory_avg_score", threshold: 1, criterion: { threshold: 1, match_type: "EXACT" } },
          { metricName: "response_match_score", threshold: 0.8 },
          { metricName: "tool_call_count" },
        ],
        definitions: createEvalMetrics(),
      });
    } finally {
      await runner.close();
    }
    const store = createFileEvalStore({ dir });
    await store.putEvalSetResult("support", result);

    const onDisk = await readAdkFile(
      join(dir, "support", "eval_history", `${result.evalSetResultId}.evalset_result.json`),
    );
    const parsed = adkEvalSetResult.parse(onDisk);
    expect(fieldNames(onDisk).filter((k) => !SNAKE.test(k))).toEqual([]);
    const [caseResult] = parsed.eval_case_results;
    expect(caseResult!.final_eval_status).toBe(1);
    expect(caseResult!.eval_metric_results).toBeNull();
    expect(caseResult!.overall_eval_metric_results.map((m) => [m.metric_name, m.eval_status, m.score])).toEqual([
      ["tool_trajectory_avg_score", 1, 1],
      ["response_match_score", 1, 1],
      // ADK has no INFORMATIONAL status: NOT_EVALUATED plus agentkit's flag.
      ["tool_call_count", 3, 1],
    ]);
    expect(caseResult!.overall_eval_metric_results[2]!.informational).toBe(true);
    expect(caseResult!.overall_eval_metric_results[0]!.criterion).toEqual({ threshold: 1, match_type: "EXACT" });
    const [row] = caseResult!.eval_metric_result_per_invocation;
    const toolUse = (row!.actual_invocation.intermediate_data as { tool_uses: { name: string; args: unknown }[] })
      .tool_uses[0]!;
    // Arguments and tool results keep the user's keys.
    expect(toolUse).toMatchObject({ name: "refund_order", args: { orderId: "A-17" } });
    expect(row!.actual_invocation.final_response!.parts![0]!.text).toBe("Order A-17 is refunded.");
    expect(caseResult!.session_details!.state).toEqual({ customerTier: "gold" });
    expect(caseResult!.session_details!.events.some((e) => JSON.stringify(e).includes('"function_call"'))).toBe(true);

    // Read back (as the routes serve it to the dev UI): the result the run produced, INFORMATIONAL included.
    expect(await store.getEvalSetResult("support", result.evalSetResultId)).toEqual(JSON.parse(JSON.stringify(result)));
  });

  it("writes rubric scores under ADK's details.rubric_scores and keeps agentkit's details as they are", () => {
    const json = evalSetResultToAdkJson({
      evalSetResultId: "r",
      evalSetResultName: "r",
      evalSetId: "s",
      creationTimestamp: 1,
      evalCaseResults: [
        {
          evalSetFile: "s",
          evalSetId: "s",
          evalId: "c",
          finalEvalStatus: EvalStatus.FAILED,
          sessionId: "x",
          userId: "u",
          overallEvalMetricResults: [
            {
              metricName: "rubric_based_final_response_quality_v1",
              threshold: 0.8,
              score: 0.5,
              evalStatus: EvalStatus.FAILED,
              details: {
                rubricScores: [
                  { rubricId: "polite", score: 1, rationale: "says please" },
                  { rubricId: "short", score: 0 },
                ],
                judgeSamples: [{ raw: "polite: yes", verdict: 0.5 }],
              },
            },
          ],
          evalMetricResultPerInvocation: [],
        },
      ],
    });
    const metric = adkEvalSetResult.parse(json).eval_case_results[0]!.overall_eval_metric_results[0]!;
    expect(metric.details).toEqual({
      rubric_scores: [
        { rubric_id: "polite", score: 1, rationale: "says please" },
        { rubric_id: "short", score: 0 },
      ],
      judgeSamples: [{ raw: "polite: yes", verdict: 0.5 }],
    });
    expect(metric).toMatchObject({ custom_function_path: null, criterion: null, eval_status: 2 });
    expect(parseEvalSetResult(json).evalCaseResults[0]!.overallEvalMetricResults[0]!.details).toEqual({
      rubricScores: [
        { rubricId: "polite", score: 1, rationale: "says please" },
        { rubricId: "short", score: 0 },
      ],
      judgeSamples: [{ raw: "polite: yes", verdict: 0.5 }],
    });
  });

  it("round-trips a result file ADK Python wrote: read in camelCase for the routes, written back as ADK wrote it", async () => {
    const id = "support_refunds_1764100005.25";
    const file = join(dir, "support", "eval_history", `${id}.evalset_result.json`);
    await mkdir(dirname(file), { recursive: true });
    await copyFile(join(fixtures, "support_refunds.evalset_result.json"), file);
    const store = createFileEvalStore({ dir });

    const loaded = (await store.getEvalSetResult("support", id))!;
    const [refund, scenario] = loaded.evalCaseResults;
    expect(refund!.overallEvalMetricResults[1]).toEqual({
      metricName: "rubric_based_final_response_quality_v1",
      threshold: 0.5,
      criterion: {
        threshold: 0.5,
        judge_model_options: { judge_model: "gemini-2.5-flash", judge_model_config: null, num_samples: 5 },
        rubrics: [
          {
            rubric_id: "polite",
            rubric_content: { text_property: "The answer is polite." },
            description: null,
            type: null,
          },
        ],
      },
      score: 1,
      evalStatus: EvalStatus.PASSED,
      details: { rubricScores: [{ rubricId: "polite", rationale: "It says please.", score: 1 }] },
    });
    const row = refund!.evalMetricResultPerInvocation[0]!;
    expect(row.expectedInvocation!.finalResponse!.parts![0]!.text).toBe("Your order A-17 is refunded.");
    expect(row.actualInvocation.intermediateData).toMatchObject({
      toolUses: [{ id: "adk-1", name: "refund_order", args: { order_id: "A-17", notifyCustomer: true } }],
      toolResponses: [{ id: "adk-1", name: "refund_order", response: { status: "refunded", refundId: "R-9" } }],
    });
    const session = refund!.sessionDetails as {
      appName: string;
      lastUpdateTime: number;
      state: Record<string, unknown>;
      events: { invocationId: string; actions: { stateDelta: Record<string, unknown> }; usageMetadata?: unknown }[];
    };
    expect(session).toMatchObject({ appName: "support", lastUpdateTime: 1764100001.2 });
    expect(session.state).toEqual({ last_refund: "R-9", customerTier: "gold" });
    expect(session.events[1]!.actions.stateDelta).toEqual({ last_refund: "R-9", customerTier: "gold" });
    expect(session.events[1]!.usageMetadata).toMatchObject({ promptTokenCount: 40, totalTokenCount: 47 });
    expect(scenario!.finalEvalStatus).toBe(EvalStatus.NOT_EVALUATED);
    expect(scenario!.evalMetricResultPerInvocation[0]!.expectedInvocation).toBeUndefined();
    expect(scenario!.overallEvalMetricResults[0]).toEqual({
      metricName: "response_match_score",
      threshold: 0.8,
      evalStatus: EvalStatus.NOT_EVALUATED,
    });

    // The same result in agentkit's earlier file shape (a camelCase object) reads the same.
    await writeFile(join(dir, "support", "eval_history", "old.evalset_result.json"), JSON.stringify(loaded, null, 2));
    expect(await store.getEvalSetResult("support", "old")).toEqual(loaded);

    // Written back under another id: the same document ADK wrote (unset fields aside).
    await store.putEvalSetResult("support", { ...loaded, evalSetResultId: "copy" });
    const original = await readAdkFile(file);
    const copy = (await readAdkFile(join(dir, "support", "eval_history", "copy.evalset_result.json"))) as Record<
      string,
      unknown
    >;
    expect(adkEvalSetResult.safeParse(copy).error).toBeUndefined();
    expect(withoutNulls({ ...copy, eval_set_result_id: id })).toEqual(withoutNulls(original));
  });
});
