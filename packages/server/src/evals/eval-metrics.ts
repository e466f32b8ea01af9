import { createLlmRequest, getTextOf, type BaseLlm, type Content, type LlmResponse } from "@agentkit/core";
import type { Invocation } from "./eval-types.js";
import { rouge1F1 } from "./rouge.js";

/** The metric catalogue entry the dev UI reads from GET metrics-info. */
export interface MetricInfo {
  metricName: string;
  description: string;
  metricValueInfo: { interval: { minValue: number; maxValue: number; openAtMin: boolean; openAtMax: boolean } };
}

/** A metric's verdict on one invocation: a score, or why there is none. */
export type InvocationScore = { score: number; details?: Record<string, unknown> } | { notEvaluated: string };

export interface EvalMetricDefinition {
  readonly info: MetricInfo;
  /** `undefined` when the metric can run; else why not (e.g. no judge model configured). */
  readonly unavailableReason?: string;
  evaluate(actual: Invocation, expected: Invocation, signal?: AbortSignal): Promise<InvocationScore>;
}

export interface EvalMetricsOptions {
  /** A model to judge responses; enables the LLM-judged metrics. */
  judgeModel?: BaseLlm;
}

const UNIT = { minValue: 0, maxValue: 1, openAtMin: false, openAtMax: false };

function text(content: Content | undefined): string {
  return content ? getTextOf(content) : "";
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Exact match of the tool calls (names and arguments, in order): 1 or 0 per invocation. */
const toolTrajectory: EvalMetricDefinition = {
  info: {
    metricName: "tool_trajectory_avg_score",
    description:
      "Share of invocations whose tool calls (names and arguments, in order) exactly match the expected ones.",
    metricValueInfo: { interval: UNIT },
  },
  async evaluate(actual, expected) {
    const calls = (inv: Invocation) =>
      (inv.intermediateData?.toolUses ?? []).map((c) => ({ name: c.name, args: c.args ?? {} }));
    const got = calls(actual);
    const want = calls(expected);
    const match =
      got.length === want.length && got.every((c, i) => c.name === want[i]!.name && sameJson(c.args, want[i]!.args));
    return { score: match ? 1 : 0 };
  },
};

/** ROUGE-1 F1 of the final response against the expected one. */
const responseMatch: EvalMetricDefinition = {
  info: {
    metricName: "response_match_score",
    description: "ROUGE-1 F1 (unigram overlap) of the agent's final response with the expected final response.",
    metricValueInfo: { interval: UNIT },
  },
  async evaluate(actual, expected) {
    return { score: rouge1F1(text(actual.finalResponse), text(expected.finalResponse)) };
  },
};

async function askJudge(judge: BaseLlm, prompt: string, signal?: AbortSignal): Promise<string> {
  const request = createLlmRequest({ model: judge.model, contents: [{ role: "user", parts: [{ text: prompt }] }] });
  let last: LlmResponse | undefined;
  for await (const response of judge.generateContentAsync(request, false, { signal }))
    if (!response.partial) last = response;
  if (last?.errorCode) throw new Error(`the judge model failed: ${last.errorMessage ?? last.errorCode}`);
  return last?.content ? getTextOf(last.content) : "";
}

function judged(
  info: MetricInfo,
  judge: BaseLlm | undefined,
  run: (judge: BaseLlm, actual: Invocation, expected: Invocation, signal?: AbortSignal) => Promise<InvocationScore>,
): EvalMetricDefinition {
  const unavailableReason = judge
    ? undefined
    : `${info.metricName} needs a judge model: pass judgeModel to createEvalRouter (or evaluate with ` +
      `tool_trajectory_avg_score / response_match_score).`;
  return {
    info,
    unavailableReason,
    async evaluate(actual, expected, signal) {
      if (!judge) return { notEvaluated: unavailableReason! };
      try {
        return await run(judge, actual, expected, signal);
      } catch (error) {
        return { notEvaluated: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}

function conversationText(inv: Invocation): string {
  return `User: ${text(inv.userContent)}`;
}

/** Every metric the server knows, the judged ones usable only with a judge model. */
export function createEvalMetrics(options: EvalMetricsOptions = {}): Map<string, EvalMetricDefinition> {
  const judge = options.judgeModel;
  const matchV2 = judged(
    {
      metricName: "final_response_match_v2",
      description:
        "An LLM judge decides whether the final response is a valid answer given the expected one (1 valid, 0 not).",
      metricValueInfo: { interval: UNIT },
    },
    judge,
    async (model, actual, expected, signal) => {
      const answer = await askJudge(
        model,
        [
          "You compare an AI agent's answer with a reference answer to the same request.",
          conversationText(expected),
          `Reference answer: ${text(expected.finalResponse)}`,
          `Agent answer: ${text(actual.finalResponse)}`,
          'Is the agent answer a valid answer carrying the reference\'s information? Reply with one word: "valid" or "invalid".',
        ].join("\n"),
        signal,
      );
      const verdict = /\binvalid\b/i.test(answer) ? 0 : /\bvalid\b/i.test(answer) ? 1 : undefined;
      if (verdict === undefined)
        return { notEvaluated: `the judge's answer was neither valid nor invalid: ${answer.slice(0, 200)}` };
      return { score: verdict, details: { judgeAnswer: answer.slice(0, 500) } };
    },
  );
  const coherence = judged(
    {
      metricName: "response_evaluation_score",
      description: "An LLM judge rates the final response's quality for the request from 1 (poor) to 5 (excellent).",
      metricValueInfo: { interval: { minValue: 1, maxValue: 5, openAtMin: false, openAtMax: false } },
    },
    judge,
    async (model, actual, expected, signal) => {
      const answer = await askJudge(
        model,
        [
          "Rate how well an AI agent's answer serves the user's request, from 1 (poor) to 5 (excellent).",
          conversationText(expected),
          `Agent answer: ${text(actual.finalResponse)}`,
          "Reply with the number only.",
        ].join("\n"),
        signal,
      );
      const score = Number(/[1-5](?:\.\d+)?/.exec(answer)?.[0]);
      if (!Number.isFinite(score)) return { notEvaluated: `the judge gave no 1-5 rating: ${answer.slice(0, 200)}` };
      return { score, details: { judgeAnswer: answer.slice(0, 500) } };
    },
  );
  return new Map([toolTrajectory, responseMatch, matchV2, coherence].map((m) => [m.info.metricName, m]));
}
