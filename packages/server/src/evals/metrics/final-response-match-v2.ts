import { textOf } from "../invocation-data.js";
import { judgeCriterionSchema, type JudgeCriterion } from "./criteria.js";
import { judged, type JudgePool } from "./judge-pool.js";
import { majority, readValidity } from "./judge-prompts.js";
import { defineMetric, eachInvocation, NO_REFERENCE, UNIT_INTERVAL } from "./metric-definition.js";

const PROMPT = `You grade an AI agent. You get a user's request, a reference answer written by a person, and the
agent's answer. The agent's answer is valid when it gives the user the information the reference
gives (same facts, numbers and conclusions), whatever its wording, length or format; extra helpful
detail is fine, a missing or contradicting fact is not.`;

/** `final_response_match_v2`: an LLM judge decides, `num_samples` times, whether each answer is valid. */
export function finalResponseMatchV2Metric(judges: JudgePool) {
  return defineMetric<JudgeCriterion>({
    info: {
      metricName: "final_response_match_v2",
      description:
        "An LLM judge decides whether the final response is a valid answer given the expected one; the majority " +
        "of num_samples verdicts counts (1 valid, 0 not), averaged over turns.",
      metricValueInfo: { interval: UNIT_INTERVAL },
    },
    unavailableReason: judges.unavailableReason && `final_response_match_v2 ${judges.unavailableReason}`,
    criterionSchema: judgeCriterionSchema,
    defaultThreshold: 0.5,
    async evaluateInvocations(input) {
      const options = input.criterion.judgeModelOptions;
      const judge = judges.resolve(options);
      return eachInvocation(input, async (actual, expected) => {
        if (!expected) return NO_REFERENCE;
        if ("unavailable" in judge) return { notEvaluated: judge.unavailable };
        return judged(input.signal, async () => {
          const prompt = [
            PROMPT,
            `User request: ${textOf(expected.userContent)}`,
            `Reference answer: ${textOf(expected.finalResponse)}`,
            `Agent answer: ${textOf(actual.finalResponse)}`,
            'Explain briefly, then end with one word on its own line: "valid" or "invalid".',
          ].join("\n\n");
          const samples = await judges.sample(judge, prompt, {
            samples: options.numSamples,
            config: options.judgeModelConfig,
            signal: input.signal,
          });
          const verdicts = samples.map((s) => readValidity(s.raw));
          const vote = majority(verdicts);
          const judgeSamples = samples.map((s, i) => ({ raw: s.raw, verdict: verdicts[i] ?? null }));
          if (!vote)
            return {
              notEvaluated: `the judge's answers were neither valid nor invalid: ${samples[0]?.raw.slice(0, 200)}`,
            };
          return { score: vote.score, details: { votes: { valid: vote.yes, invalid: vote.no }, judgeSamples } };
        });
      });
    },
  });
}
