import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { createEvalRouter, createInMemoryEvalStore, EvalStatus, type EvalSetResult } from "../../src/evals/index.js";
import { getJson, sendJson, serve, staticContext } from "../telemetry/http-harness.js";

const turn = (q: string, a: string) => ({
  user_content: { role: "user", parts: [{ text: q }] },
  final_response: { role: "model", parts: [{ text: a }] },
});

describe("POST …/eval-sets/:id/run-stream (progress as server-sent events)", () => {
  const model = new ScriptedModel({ steps: [ScriptedModel.text("one"), ScriptedModel.text("nope")] });
  const ctx = staticContext({ app: new LlmAgent({ name: "a", model }) });
  let server: Awaited<ReturnType<typeof serve>>;
  let base = "";

  beforeAll(async () => {
    server = await serve(createEvalRouter({ ...ctx, evalStore: createInMemoryEvalStore() }));
    base = `${server.url}/dev/apps/app`;
    const created = await sendJson("POST", `${base}/eval-sets`, {
      eval_set: {
        eval_set_id: "s",
        eval_cases: [
          { eval_id: "c1", conversation: [turn("q1", "one")] },
          { eval_id: "c2", conversation: [turn("q2", "two")] },
        ],
      },
    });
    expect(created.status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    await ctx.close();
  });

  it("sends a progress frame as each case starts and ends, then the stored result", async () => {
    const response = await fetch(`${base}/eval-sets/s/run-stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ evalMetrics: [{ metricName: "response_match_score", threshold: 1 }] }),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const frames = (await response.text())
      .split("\n\n")
      .filter(Boolean)
      .map((f) => JSON.parse(f.replace(/^data: /, "")) as Record<string, unknown>);
    expect(frames.slice(0, 4).map((f) => f.progress)).toEqual([
      { kind: "case_started", evalId: "c1", done: 0, total: 2 },
      { kind: "case_finished", evalId: "c1", done: 1, total: 2, finalEvalStatus: EvalStatus.PASSED },
      { kind: "case_started", evalId: "c2", done: 1, total: 2 },
      { kind: "case_finished", evalId: "c2", done: 2, total: 2, finalEvalStatus: EvalStatus.FAILED },
    ]);
    const { result } = frames[4] as { result: EvalSetResult };
    expect(frames).toHaveLength(5);
    const stored = await getJson(`${base}/eval_results/${result.evalSetResultId}`);
    expect((stored.body as EvalSetResult).evalCaseResults.map((c) => c.evalId)).toEqual(["c1", "c2"]);
  });

  it("answers a bad request with a plain 400 before any stream", async () => {
    const { status, body } = await sendJson("POST", `${base}/eval-sets/s/run-stream`, {
      evalMetrics: [{ metricName: "made_up", threshold: 1 }],
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "UNKNOWN_METRIC" });
  });
});
