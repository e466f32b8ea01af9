// Usage rollups and budgets through the HTTP API: the final event's `agentkit:usage`, the
// session usage route, and a used-up budget as a 429 JSON body on /run and a frame on /run_sse.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { App, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  json,
  parseSseStrict,
  post,
  startTestServer,
  userMessage,
  type Json,
  type TestServer,
} from "./support/test-server.js";

const U = "budget_user";
const usage = (prompt: number, candidates: number) => ({
  promptTokenCount: prompt,
  candidatesTokenCount: candidates,
  totalTokenCount: prompt + candidates,
});

let t: TestServer;
let metered: ScriptedModel;

beforeAll(async () => {
  metered = new ScriptedModel({
    model: "metered-model",
    steps: [
      ScriptedModel.text("first", { usageMetadata: usage(100, 50) }),
      ScriptedModel.text("second", { usageMetadata: usage(60, 10) }),
    ],
  });
  t = await startTestServer({
    apps: {
      metered: new App({
        name: "metered",
        rootAgent: new LlmAgent({ name: "counter", model: metered }),
        budget: { session: { maxTokens: 200 } },
        prices: { "metered-model": { inputPerMillion: 1, outputPerMillion: 2 } },
      }),
    },
  });
});
afterAll(async () => {
  await t.close();
});

const newSession = async () => (await json(await post(`${t.url}/apps/metered/users/${U}/sessions`))).id as string;
const body = (sid: string, text: string) => ({
  appName: "metered",
  userId: U,
  sessionId: sid,
  newMessage: userMessage(text),
});
const sse = async (sid: string, text: string) => {
  const res = await post(`${t.url}/run_sse`, body(sid, text), { Accept: "text/event-stream" });
  expect(res.status).toBe(200);
  return parseSseStrict(await res.text());
};

describe("usage and budgets over HTTP", () => {
  it("shows usage on the final event and the session route; a used-up budget is a 429 body and an error frame", async () => {
    const sid = await newSession();

    // 1. /run: the final event carries the invocation's and the session's usage.
    const first = await post(`${t.url}/run`, body(sid, "one"));
    expect(first.status).toBe(200);
    const [answer] = (await first.json()) as Json[];
    const rollup = answer!.customMetadata["agentkit:usage"];
    expect(rollup.invocation).toMatchObject({
      modelCalls: 1,
      toolCalls: 0,
      tokens: { prompt: 100, candidates: 50, total: 150 },
      models: { "metered-model": { modelCalls: 1 } },
    });
    expect(rollup.invocation.costUsd).toBeCloseTo((100 * 1 + 50 * 2) / 1e6, 12);
    expect(rollup.session.tokens.total).toBe(150);
    // The ADK event shape is untouched: usage sits inside customMetadata.
    expect(Object.keys(answer!).filter((k) => !KNOWN_EVENT_KEYS.has(k))).toEqual([]);

    // 2. /run_sse: 150 < 200 before the call, so it runs (and overshoots).
    const frames = await sse(sid, "two");
    expect(frames.at(-1)!.customMetadata["agentkit:usage"].session.tokens.total).toBe(220);

    // 3. The session route, computed from stored events.
    const report = await json(await fetch(`${t.url}/apps/metered/users/${U}/sessions/${sid}/usage`));
    expect(report).toMatchObject({ appName: "metered", userId: U, sessionId: sid });
    expect(report.total).toMatchObject({ modelCalls: 2, tokens: { total: 220 } });
    expect(report.total.costUsd).toBeCloseTo((160 * 1 + 60 * 2) / 1e6, 12);
    expect(report.invocations.map((i: Json) => i.tokens.total)).toEqual([150, 70]);

    // 4. /run past the budget: 429, the typed error's code, and the stored event in `events`.
    const refused = await post(`${t.url}/run`, body(sid, "three"));
    expect(refused.status).toBe(429);
    const error = await json(refused);
    expect(error).toMatchObject({ code: "BUDGET_TOKENS_EXCEEDED" });
    expect(error.error).toContain("session budget of 200 tokens is used up (220 tokens so far)");
    expect(error.detail).toBe(error.error);
    expect(error.events).toHaveLength(1);
    expect(error.events[0]).toMatchObject({ author: "counter", errorCode: "BUDGET_TOKENS_EXCEEDED" });

    // 5. /run_sse past the budget: the event frame, then the error frame; the status stays 200.
    const refusedFrames = await sse(sid, "four");
    expect(refusedFrames.map((f) => f.errorCode ?? f.code)).toEqual([
      "BUDGET_TOKENS_EXCEEDED",
      "BUDGET_TOKENS_EXCEEDED",
    ]);
    expect(refusedFrames[1]).toEqual({ error: expect.stringContaining("budget"), code: "BUDGET_TOKENS_EXCEEDED" });

    // The refusals are stored; the model was not called again; nothing was logged as a failure.
    const session = await json(await fetch(`${t.url}/apps/metered/users/${U}/sessions/${sid}`));
    expect(session.events.map((e: Json) => e.errorCode ?? e.author)).toEqual([
      "user",
      "counter",
      "user",
      "counter",
      "user",
      "BUDGET_TOKENS_EXCEEDED",
      "user",
      "BUDGET_TOKENS_EXCEEDED",
    ]);
    metered.assertConsumed();
    expect(t.logger.errors).toEqual([]);
  });

  it("answers the usage route for unknown sessions and apps with a JSON 404", async () => {
    const missing = await fetch(`${t.url}/apps/metered/users/${U}/sessions/nope/usage`);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ code: "SESSION_NOT_FOUND" });
    const noApp = await fetch(`${t.url}/apps/no_such_app/users/${U}/sessions/nope/usage`);
    expect(noApp.status).toBe(404);
    expect(await json(noApp)).toMatchObject({ code: "APP_NOT_FOUND" });
  });
});

/** Event fields of http-api.md section 2.2. */
const KNOWN_EVENT_KEYS = new Set([
  "id",
  "invocationId",
  "author",
  "branch",
  "timestamp",
  "content",
  "actions",
  "longRunningToolIds",
  "partial",
  "turnComplete",
  "interrupted",
  "errorCode",
  "errorMessage",
  "finishReason",
  "usageMetadata",
  "groundingMetadata",
  "citationMetadata",
  "customMetadata",
  "modelVersion",
  "avgLogprobs",
  "logprobsResult",
  "cacheMetadata",
  "inputTranscription",
  "outputTranscription",
  "liveSessionResumptionUpdate",
]);
