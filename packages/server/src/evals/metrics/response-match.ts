import { textOf } from "../invocation-data.js";
import { rouge1F1 } from "../rouge.js";
import { baseCriterionSchema } from "./criteria.js";
import { defineMetric, eachInvocation, NO_REFERENCE, UNIT_INTERVAL, type BaseCriterion } from "./metric-definition.js";

/** `response_match_score`: ROUGE-1 F1 of each final response against the reference one. */
export const responseMatchMetric = defineMetric<BaseCriterion>({
  info: {
    metricName: "response_match_score",
    description: "ROUGE-1 F1 (unigram overlap) of the agent's final response with the expected final response.",
    metricValueInfo: { interval: UNIT_INTERVAL },
  },
  criterionSchema: baseCriterionSchema,
  defaultThreshold: 0.8,
  evaluateInvocations: (input) =>
    eachInvocation(input, async (actual, expected) =>
      expected ? { score: rouge1F1(textOf(actual.finalResponse), textOf(expected.finalResponse)) } : NO_REFERENCE,
    ),
});
