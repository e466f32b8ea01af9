import { textOf } from "../invocation-data.js";
import { judgeCriterionSchema, type JudgeCriterion } from "./criteria.js";
import { judged, type JudgePool } from "./judge-pool.js";
import { defineMetric, eachInvocation } from "./metric-definition.js";

/** `response_evaluation_score`: an LLM judge rates each answer from 1 to 5 (the mean of the samples). */
export function responseEvaluationScoreMetric(judges: JudgePool) {
  return defineMetric<JudgeCriterion>({
    info: {
      metricName: "response_evaluation_score",
      description: "An LLM judge rates the final response's quality for the request from 1 (poor) to 5 (excellent).",
      metricValueInfo: { interval: { minValue: 1, maxValue: 5, openAtMin: false, openAtMax: false } },
    },
    unavailableReason: judges.unavailableReason && `response_evaluation_score ${judges.unavailableReason}`,
    criterionSchema: judgeCriterionSchema,
    defaultThreshold: 3,
    async evaluateInvocations(input) {
      const options = input.criterion.judgeModelOptions;
      const judge = judges.resolve(options);
      return eachInvocation(input, async (actual) => {
        if ("unavailable" in judge) return { notEvaluated: judge.unavailable };
        return judged(input.signal, async () => {
          const prompt = [
            "Rate how well an AI agent's answer serves the user's request, from 1 (poor) to 5 (excellent):",
            "correct, complete, clear and on topic.",
            `User request: ${textOf(actual.userContent)}`,
            `Agent answer: ${textOf(actual.finalResponse)}`,
            "Reply with the number only.",
          ].join("\n");
          const samples = await judges.sample(judge, prompt, {
            samples: options.numSamples,
            config: options.judgeModelConfig,
            signal: input.signal,
          });
          const ratings = samples.map((s) => Number(/[1-5](?:\.\d+)?/.exec(s.raw)?.[0]));
          const valid = ratings.filter((r) => Number.isFinite(r));
          const judgeSamples = samples.map((s, i) => ({
            raw: s.raw,
            rating: Number.isFinite(ratings[i]) ? ratings[i] : null,
          }));
          if (valid.length === 0)
            return { notEvaluated: `the judge gave no 1-5 rating: ${samples[0]?.raw.slice(0, 200)}` };
          return { score: valid.reduce((a, b) => a + b, 0) / valid.length, details: { judgeSamples } };
        });
      });
    },
  });
}
