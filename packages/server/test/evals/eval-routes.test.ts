import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FunctionTool, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import {
  createEvalRouter,
  createFileEvalStore,
  EVAL_SESSION_PREFIX,
  EvalStatus,
  toolUsesOf,
  type EvalCase,
  type EvalSetResult,
  type RunEvalResult,
} from "../../src/evals/index.js";
import { getJson, sendJson, serve, staticContext } from "../telemetry/http-harness.js";

const weatherTool = new FunctionTool({
  name: "get_weather",
  description: "Weather of a city",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, sky: city === "Oslo" ? "sunny" : "rainy" }),
});

describe("eval routes over HTTP (http-api.md 4.10, checklist 35)", () => {
  const model = new ScriptedModel({ model: "scripted" });
  const agent = new LlmAgent({ name: "weather_agent", model, tools: [weatherTool] });
  const ctx = staticContext({ weather: agent });
  let dir = "";
  let server: Awaited<ReturnType<typeof serve>>;
  let base = "";

  const chat = async (sessionId: string, text: string) => {
    await ctx.sessionService.createSession({ appName: "weather", userId: "u", sessionId });
    const runner = await ctx.runnerFor("weather");
    for await (const _ of runner.runAsync({ userId: "u", sessionId, newMessage: { role: "user", parts: [{ text }] } }))
      void _;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentkit-eval-routes-"));
    server = await serve(createEvalRouter({ ...ctx, evalStore: createFileEvalStore({ dir }) }));
    base = `${server.url}/dev/apps/weather`;
    model.push(
      ScriptedModel.functionCall("get_weather", { city: "Oslo" }),
      ScriptedModel.text("It is sunny in Oslo today"),
      ScriptedModel.functionCall("get_weather", { city: "Bergen" }),
      ScriptedModel.text("It is rainy in Bergen today"),
    );
    await chat("s1", "weather in Oslo?");
    await chat("s2", "weather in Bergen?");
  });
  afterAll(async () => {
    await server.close();
    await ctx.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("lists no eval sets at first: 200 and a JSON array (checklist 35), on both prefixes", async () => {
    expect(await getJson(`${base}/eval_sets`)).toMatchObject({ status: 200, body: [] });
    expect(await getJson(`${server.url}/apps/weather/eval_sets`)).toMatchObject({ status: 200, body: [] });
  });

  it("creates an eval set from the UI's snake_case body, refuses a duplicate", async () => {
    const body = {
      eval_set: { eval_set_id: "smoke", model_execution_mode: "live", tool_execution_mode: "live", eval_cases: [] },
    };
    const created = await sendJson("POST", `${base}/eval-sets`, body);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ evalSetId: "smoke", evalCases: [] });
    expect(
      Math.abs((created.body as { creationTimestamp: number }).creationTimestamp - Date.now() / 1000),
    ).toBeLessThan(60);
    expect((await sendJson("POST", `${base}/eval-sets`, body)).status).toBe(400);
    expect((await getJson(`${base}/eval_sets`)).body).toEqual(["smoke"]);
    expect((await getJson(`${base}/eval-sets/smoke`)).body).toMatchObject({ evalSetId: "smoke" });
  });

  it("adds sessions as cases (conversation with tool uses and final response), refuses a duplicate id", async () => {
    const added = await sendJson("POST", `${base}/eval_sets/smoke/add_session`, {
      evalId: "oslo",
      sessionId: "s1",
      userId: "u",
    });
    expect(added.status).toBe(200);
    expect(
      (
        await sendJson("POST", `${base}/eval-sets/smoke/add-session`, {
          eval_id: "bergen",
          session_id: "s2",
          user_id: "u",
        })
      ).status,
    ).toBe(200);
    expect(
      (await sendJson("POST", `${base}/eval_sets/smoke/add_session`, { evalId: "oslo", sessionId: "s1", userId: "u" }))
        .status,
    ).toBe(400);
    expect((await getJson(`${base}/eval_sets/smoke/evals`)).body).toEqual(["bergen", "oslo"]);
    const oslo = (await getJson(`${base}/eval_sets/smoke/evals/oslo`)).body as EvalCase;
    expect(oslo.sessionInput).toEqual({ appName: "weather", userId: "u", state: {} });
    expect(oslo.conversation).toHaveLength(1);
    expect(oslo.conversation![0]!.userContent.parts![0]!.text).toBe("weather in Oslo?");
    expect(oslo.conversation![0]!.finalResponse!.parts![0]!.text).toBe("It is sunny in Oslo today");
    expect(toolUsesOf(oslo.conversation![0]!).map((t) => [t.name, t.args])).toEqual([
      ["get_weather", { city: "Oslo" }],
    ]);
  });

  it("runs the set: the replay matching the case passes, the diverging one scores below threshold; the result is stored", async () => {
    model.push(
      ScriptedModel.functionCall("get_weather", { city: "Oslo" }),
      ScriptedModel.text("It is sunny in Oslo today"),
      // the Bergen case now goes wrong: another city, another answer
      ScriptedModel.functionCall("get_weather", { city: "Oslo" }),
      ScriptedModel.text("I cannot tell"),
    );
    const metrics = [
      { metricName: "tool_trajectory_avg_score", threshold: 1 },
      { metricName: "response_match_score", threshold: 0.7 },
      { metricName: "response_evaluation_score", threshold: 3 },
    ];
    const { status, body } = await sendJson("POST", `${base}/eval_sets/smoke/run_eval`, {
      evalIds: ["oslo", "bergen"],
      evalMetrics: metrics,
    });
    expect(status).toBe(200);
    const results = body as RunEvalResult[];
    expect(results.map((r) => r.evalId).sort()).toEqual(["bergen", "oslo"]);
    const oslo = results.find((r) => r.evalId === "oslo")!;
    const bergen = results.find((r) => r.evalId === "bergen")!;
    expect(oslo.finalEvalStatus).toBe(EvalStatus.PASSED);
    expect(oslo.overallEvalMetricResults.slice(0, 2).map((m) => [m.metricName, m.score, m.evalStatus])).toEqual([
      ["tool_trajectory_avg_score", 1, EvalStatus.PASSED],
      ["response_match_score", 1, EvalStatus.PASSED],
    ]);
    // no judge model: reported, not scored, and not held against the case
    expect(oslo.overallEvalMetricResults[2]).toMatchObject({
      metricName: "response_evaluation_score",
      evalStatus: EvalStatus.NOT_EVALUATED,
    });
    expect(String(oslo.overallEvalMetricResults[2]!.details!.reason)).toContain("judge model");

    expect(bergen.finalEvalStatus).toBe(EvalStatus.FAILED);
    const [trajectory, match] = bergen.overallEvalMetricResults;
    expect(trajectory).toMatchObject({ score: 0, evalStatus: EvalStatus.FAILED });
    expect(match!.score).toBeLessThan(0.7);
    expect(match!.evalStatus).toBe(EvalStatus.FAILED);
    const perInvocation = bergen.evalMetricResultPerInvocation[0]!;
    expect(toolUsesOf(perInvocation.actualInvocation)[0]!.args).toEqual({ city: "Oslo" });
    expect(toolUsesOf(perInvocation.expectedInvocation!)[0]!.args).toEqual({ city: "Bergen" });
    expect(perInvocation.actualInvocation.finalResponse!.parts![0]!.text).toBe("I cannot tell");
    // legacy pair form for old clients
    expect(bergen.evalMetricResults[0]![0]).toEqual(metrics[0]);

    // the replay ran on a fresh session that the UI can open
    expect(bergen.sessionId.startsWith(EVAL_SESSION_PREFIX)).toBe(true);
    const session = await ctx.sessionService.getSession({
      appName: "weather",
      userId: "u",
      sessionId: bergen.sessionId,
    });
    expect(session!.events.map((e) => e.author)).toEqual(["user", "weather_agent", "weather_agent", "weather_agent"]);
    expect((bergen.sessionDetails as { id: string }).id).toBe(bergen.sessionId);

    const ids = (await getJson(`${base}/eval_results`)).body as string[];
    expect(ids).toHaveLength(1);
    const stored = (await getJson(`${base}/eval_results/${encodeURIComponent(ids[0]!)}`)).body as EvalSetResult;
    expect(stored.evalSetId).toBe("smoke");
    expect(stored.evalCaseResults.map((r) => r.finalEvalStatus).sort()).toEqual([EvalStatus.PASSED, EvalStatus.FAILED]);
    expect(Math.abs(stored.creationTimestamp - Date.now() / 1000)).toBeLessThan(60);
  });

  it("runs through the hyphenated family with snake_case fields and answers {runEvalResults}", async () => {
    model.push(ScriptedModel.functionCall("get_weather", { city: "Oslo" }), ScriptedModel.text("Sunny in Oslo"));
    const { status, body } = await sendJson("POST", `${base}/eval-sets/smoke/run`, {
      eval_case_ids: ["oslo"],
      eval_metrics: [{ metric_name: "response_match_score", threshold: 0.5 }],
    });
    expect(status).toBe(200);
    const results = (body as { runEvalResults: RunEvalResult[] }).runEvalResults;
    expect(results).toHaveLength(1);
    expect(results[0]!.overallEvalMetricResults).toEqual([
      expect.objectContaining({ metricName: "response_match_score", threshold: 0.5, evalStatus: EvalStatus.PASSED }),
    ]);
    expect(((await getJson(`${base}/eval-results`)).body as string[]).length).toBe(2);
    expect(((await getJson(`${server.url}/apps/weather/eval_results`)).body as string[]).length).toBe(2);
  });

  it("serves the metric catalogue: the metrics that can run", async () => {
    const { status, body } = await getJson(`${base}/metrics-info`);
    expect(status).toBe(200);
    const info = (
      body as {
        metricsInfo: { metricName: string; metricValueInfo: { interval: { minValue: number; maxValue: number } } }[];
      }
    ).metricsInfo;
    // Without a judge model: the deterministic metrics. The efficiency figures are informational
    // (a UI would send them a threshold), so they are run from test_config.json, not offered here.
    expect(info.map((m) => m.metricName).sort()).toEqual(["response_match_score", "tool_trajectory_avg_score"]);
    expect(info[0]!.metricValueInfo.interval).toMatchObject({ minValue: 0, maxValue: 1 });
  });

  it("updates and deletes cases and sets", async () => {
    const oslo = (await getJson(`${base}/eval_sets/smoke/evals/oslo`)).body as EvalCase;
    const edited = {
      ...oslo,
      conversation: oslo.conversation!.map((c) => ({
        ...c,
        finalResponse: { role: "model", parts: [{ text: "Sunny!" }] },
      })),
    };
    expect((await sendJson("PUT", `${base}/eval_sets/smoke/evals/oslo`, edited)).status).toBe(200);
    const reread = (await getJson(`${base}/eval-sets/smoke/eval-cases/oslo`)).body as EvalCase;
    expect(reread.conversation![0]!.finalResponse!.parts![0]!.text).toBe("Sunny!");
    expect((await sendJson("DELETE", `${base}/eval_sets/smoke/evals/bergen`)).status).toBe(200);
    expect((await getJson(`${base}/eval_sets/smoke/evals/bergen`)).status).toBe(404);
    expect((await getJson(`${base}/eval_sets/smoke/evals`)).body).toEqual(["oslo"]);
    expect((await sendJson("PUT", `${base}/eval_sets/smoke/evals/nope`, { conversation: [] })).status).toBe(404);
  });

  it("answers JSON errors: unknown app, set, case or metric, invalid bodies and ids", async () => {
    const expectError = async (p: Promise<{ status: number; body: unknown }>, status: number, text: string) => {
      const res = await p;
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({
        error: expect.stringContaining(text) as unknown,
        detail: expect.stringContaining(text) as unknown,
      });
    };
    await expectError(getJson(`${server.url}/dev/apps/nope/eval_sets`), 404, "App not found: nope");
    await expectError(getJson(`${base}/eval_sets/missing`), 404, "Eval set not found: missing");
    await expectError(getJson(`${base}/eval_sets/missing/evals`), 404, "Eval set not found");
    await expectError(
      sendJson("POST", `${base}/eval_sets/smoke/add_session`, { sessionId: "s1", userId: "u" }),
      400,
      "evalId",
    );
    await expectError(
      sendJson("POST", `${base}/eval_sets/smoke/add_session`, { evalId: "x", sessionId: "nope", userId: "u" }),
      404,
      "Session not found",
    );
    await expectError(
      sendJson("POST", `${base}/eval_sets/smoke/run_eval`, { evalMetrics: [{ metricName: "bogus", threshold: 1 }] }),
      400,
      "Unknown eval metric",
    );
    await expectError(
      sendJson("POST", `${base}/eval-sets/smoke/run`, {
        eval_metrics: [{ metric_name: "tool_trajectory_avg_score", criterion: { threshold: 1, match_type: "LOOSE" } }],
      }),
      400,
      "eval_metrics.tool_trajectory_avg_score.match_type",
    );
    await expectError(
      sendJson("POST", `${base}/eval-sets/smoke/run`, {
        eval_metrics: [{ metric_name: "response_match_score", threshold: 7 }],
      }),
      400,
      "outside the metric's range [0, 1]",
    );
    // A request is data: it may not name code to run.
    await expectError(
      sendJson("POST", `${base}/eval-sets/smoke/run`, {
        eval_metrics: [{ metric_name: "mine", threshold: 1, custom_function_path: "weather.metrics.score" }],
      }),
      400,
      "custom_function_path",
    );
    await expectError(
      sendJson("POST", `${base}/eval_sets/smoke/run_eval`, { evalIds: ["ghost"] }),
      404,
      "Eval case not found: ghost",
    );
    await expectError(
      sendJson("POST", `${base}/eval-sets`, { eval_set: { eval_set_id: "../etc" } }),
      400,
      "Invalid eval set id",
    );
    await expectError(sendJson("POST", `${base}/eval-sets`, { eval_set: { eval_cases: "nope" } }), 400, "eval");
    await expectError(getJson(`${base}/eval_results/${encodeURIComponent("../x")}`), 400, "Invalid eval result id");
    await expectError(getJson(`${base}/eval_results/nothing`), 404, "Eval result not found");
    const malformed = await fetch(`${base}/eval-sets`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("content-type")).toMatch(/json/);
  });

  it("keeps every case when sessions are added concurrently (edits of one app are serialised)", async () => {
    const ids = ["p0", "p1", "p2", "p3", "p4", "p5"];
    const answers = await Promise.all(
      ids.map((evalId) =>
        sendJson("POST", `${base}/eval_sets/smoke/add_session`, { evalId, sessionId: "s1", userId: "u" }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
    expect((await getJson(`${base}/eval_sets/smoke/evals`)).body).toEqual(["oslo", ...ids]);
    await Promise.all(ids.map((id) => sendJson("DELETE", `${base}/eval_sets/smoke/evals/${id}`)));
    expect((await getJson(`${base}/eval_sets/smoke/evals`)).body).toEqual(["oslo"]);
  });

  it("creates a set with the id in the path (legacy) and deletes it", async () => {
    expect((await sendJson("POST", `${server.url}/apps/weather/eval_sets/legacy`)).status).toBe(200);
    expect((await getJson(`${base}/eval_sets`)).body).toEqual(["legacy", "smoke"]);
    expect((await sendJson("DELETE", `${base}/eval-sets/legacy`)).status).toBe(200);
    expect((await sendJson("DELETE", `${base}/eval-sets/legacy`)).status).toBe(404);
    expect((await getJson(`${base}/eval_sets`)).body).toEqual(["smoke"]);
  });
});

describe("scenario cases over HTTP (a user simulator per app)", () => {
  const agentModel = new ScriptedModel({ model: "agent" });
  const simulatorModel = new ScriptedModel({ model: "simulator" });
  const plainModel = new ScriptedModel({ model: "plain" });
  const ctx = staticContext({
    shop: new LlmAgent({ name: "shop", model: agentModel }),
    plain: new LlmAgent({ name: "plain", model: plainModel }),
  });
  const asked: string[] = [];
  let dir = "";
  let server: Awaited<ReturnType<typeof serve>>;
  const scenarioSet = {
    eval_set: {
      eval_set_id: "scenarios",
      eval_cases: [
        {
          eval_id: "order_socks",
          conversation_scenario: {
            starting_prompt: "I need socks.",
            conversation_plan: "Order red socks in size 42, then finish.",
          },
        },
      ],
    },
  };
  const metrics = { eval_metrics: [{ metric_name: "model_call_count", threshold: 5 }] };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentkit-eval-scenarios-"));
    server = await serve(
      createEvalRouter({
        ...ctx,
        evalStore: createFileEvalStore({ dir }),
        // "shop" has a simulator, "plain" none.
        userSimulator: async (appName) => {
          asked.push(appName);
          return appName === "shop" ? { model: simulatorModel, maxAllowedInvocations: 5 } : undefined;
        },
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    await ctx.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("plays the scenario with the app's simulator and stores the conversation in the result", async () => {
    agentModel.push(ScriptedModel.text("Which colour and size?"), ScriptedModel.text("Red socks, size 42: ordered."));
    simulatorModel.push(ScriptedModel.text("Red, size 42."), ScriptedModel.text("</finished>"));
    const base = `${server.url}/dev/apps/shop`;
    expect((await sendJson("POST", `${base}/eval_sets`, scenarioSet)).status).toBe(200);
    const run = await sendJson("POST", `${base}/eval_sets/scenarios/run_eval`, metrics);
    expect(run.status).toBe(200);
    const [caseResult] = run.body as RunEvalResult[];
    expect(caseResult!.finalEvalStatus).toBe(EvalStatus.PASSED);
    expect(caseResult!.overallEvalMetricResults[0]).toMatchObject({ metricName: "model_call_count", score: 2 });
    const turns = caseResult!.evalMetricResultPerInvocation.map((row) => [
      row.actualInvocation.userContent.parts![0]!.text,
      row.actualInvocation.finalResponse!.parts![0]!.text,
      row.expectedInvocation,
    ]);
    expect(turns).toEqual([
      ["I need socks.", "Which colour and size?", undefined],
      ["Red, size 42.", "Red socks, size 42: ordered.", undefined],
    ]);
    simulatorModel.assertConsumed();
    expect(asked).toEqual(["shop"]);
    // The stored result (the dev UI's history) holds the played conversation, in camelCase.
    const ids = (await getJson(`${base}/eval_results`)).body as string[];
    const stored = (await getJson(`${base}/eval_results/${encodeURIComponent(ids[0]!)}`)).body as EvalSetResult;
    expect(stored.evalCaseResults[0]!.evalMetricResultPerInvocation).toHaveLength(2);
  });

  it("without a simulator for the app, the case is NOT_EVALUATED with the reason (200, not an error)", async () => {
    const base = `${server.url}/dev/apps/plain`;
    expect((await sendJson("POST", `${base}/eval_sets`, scenarioSet)).status).toBe(200);
    const run = await sendJson("POST", `${base}/eval_sets/scenarios/run`, metrics);
    expect(run.status).toBe(200);
    const [caseResult] = (run.body as { runEvalResults: RunEvalResult[] }).runEvalResults;
    expect(caseResult!.finalEvalStatus).toBe(EvalStatus.NOT_EVALUATED);
    expect(caseResult!.overallEvalMetricResults[0]).toMatchObject({
      evalStatus: EvalStatus.NOT_EVALUATED,
      details: { reason: expect.stringContaining("needs a user simulator model") },
    });
    expect(caseResult!.evalMetricResultPerInvocation).toEqual([]);
  });

  it("asks for no simulator when the run has no scenario case", async () => {
    const base = `${server.url}/dev/apps/plain`;
    const fixed = {
      eval_set: {
        eval_set_id: "fixed",
        eval_cases: [
          {
            eval_id: "hi",
            conversation: [{ user_content: { role: "user", parts: [{ text: "hi" }] } }],
          },
        ],
      },
    };
    expect((await sendJson("POST", `${base}/eval_sets`, fixed)).status).toBe(200);
    asked.length = 0;
    plainModel.push(ScriptedModel.text("hello"));
    const run = await sendJson("POST", `${base}/eval_sets/fixed/run`, metrics);
    expect(run.status).toBe(200);
    const [caseResult] = (run.body as { runEvalResults: RunEvalResult[] }).runEvalResults;
    expect(caseResult!.finalEvalStatus).toBe(EvalStatus.PASSED);
    expect(asked).toEqual([]);
  });
});
