import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { createEvalRouter, createInMemoryEvalStore, EvalStatus, type RunEvalResult } from "../../src/evals/index.js";
import { getJson, sendJson, serve, staticContext } from "../telemetry/http-harness.js";

describe("eval routes with a judge model", () => {
  const model = new ScriptedModel({ steps: [ScriptedModel.text("Paris is the capital of France.")] });
  const judge = new ScriptedModel({ model: "judge", steps: [] });
  const ctx = staticContext({ geo: new LlmAgent({ name: "geo", model }) });
  let server: Awaited<ReturnType<typeof serve>>;
  let base = "";

  beforeAll(async () => {
    server = await serve(createEvalRouter({ ...ctx, evalStore: createInMemoryEvalStore(), judgeModel: judge }));
    base = `${server.url}/dev/apps/geo`;
    await ctx.sessionService.createSession({ appName: "geo", userId: "u", sessionId: "g1" });
    const runner = await ctx.runnerFor("geo");
    for await (const _ of runner.runAsync({
      userId: "u",
      sessionId: "g1",
      newMessage: { role: "user", parts: [{ text: "capital of France?" }] },
    }))
      void _;
  });
  afterAll(async () => {
    await server.close();
    await ctx.close();
  });

  it("lists the judged metrics and scores a run with the judge's verdicts", async () => {
    const info = (await getJson(`${base}/metrics-info`)).body as { metricsInfo: { metricName: string }[] };
    expect(info.metricsInfo.map((m) => m.metricName)).toEqual(
      expect.arrayContaining([
        "final_response_match_v2",
        "response_evaluation_score",
        "response_match_score",
        "tool_trajectory_avg_score",
      ]),
    );
    expect((await sendJson("POST", `${base}/eval-sets`, { eval_set: { eval_set_id: "geo_set" } })).status).toBe(200);
    expect(
      (
        await sendJson("POST", `${base}/eval_sets/geo_set/add_session`, {
          evalId: "france",
          sessionId: "g1",
          userId: "u",
        })
      ).status,
    ).toBe(200);

    model.push(ScriptedModel.text("It's Paris."));
    // ADK's default of 5 samples per verdict: five for the match, five ratings.
    judge.push(
      ScriptedModel.text("valid"),
      ScriptedModel.text("The answer names Paris.\nvalid"),
      ScriptedModel.text("invalid"),
      ScriptedModel.text("valid"),
      ScriptedModel.text("valid"),
      ...["2", "2", "3", "1", "2"].map((r) => ScriptedModel.text(r)),
    );
    const { status, body } = await sendJson("POST", `${base}/eval_sets/geo_set/run_eval`, {
      evalIds: ["france"],
      evalMetrics: [
        { metricName: "final_response_match_v2", threshold: 0.5 },
        { metricName: "response_evaluation_score", threshold: 3 },
      ],
    });
    expect(status).toBe(200);
    const [result] = body as RunEvalResult[];
    expect(result!.overallEvalMetricResults.map((m) => [m.metricName, m.score, m.evalStatus])).toEqual([
      ["final_response_match_v2", 1, EvalStatus.PASSED],
      ["response_evaluation_score", 2, EvalStatus.FAILED],
    ]);
    // The raw verdicts stay in the result for inspection.
    const [v2Turn] = result!.evalMetricResultPerInvocation[0]!.evalMetricResults;
    expect(v2Turn!.details).toMatchObject({ votes: { valid: 4, invalid: 1 } });
    expect((v2Turn!.details!.judgeSamples as { raw: string }[]).map((s) => s.raw)).toContain("invalid");
    expect(result!.finalEvalStatus).toBe(EvalStatus.FAILED);
    const judgePrompt = judge.requests[0]!.contents[0]!.parts![0]!.text!;
    expect(judgePrompt).toContain("Reference answer: Paris is the capital of France.");
    expect(judgePrompt).toContain("Agent answer: It's Paris.");
    judge.assertConsumed();
  });
});
