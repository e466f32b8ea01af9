import { toolUsesOf } from "../invocation-data.js";
import { trajectoryCriterionSchema, type TrajectoryCriterion } from "./criteria.js";
import { defineMetric, eachInvocation, NO_REFERENCE, UNIT_INTERVAL } from "./metric-definition.js";
import { scoreTrajectory } from "./trajectory-matching.js";

/** `tool_trajectory_avg_score`: the tool calls of each turn against the reference ones. */
export const toolTrajectoryMetric = defineMetric<TrajectoryCriterion>({
  info: {
    metricName: "tool_trajectory_avg_score",
    description:
      "Average over turns of the tool-call match with the reference (match_type EXACT, IN_ORDER or ANY_ORDER; " +
      "ignore_args; partial credit by precision, recall or F1; per-argument matchers).",
    metricValueInfo: { interval: UNIT_INTERVAL },
  },
  criterionSchema: trajectoryCriterionSchema,
  defaultThreshold: 1,
  evaluateInvocations: (input) =>
    eachInvocation(input, async (actual, expected) => {
      if (!expected) return NO_REFERENCE;
      const { score, ...details } = scoreTrajectory(toolUsesOf(actual), toolUsesOf(expected), input.criterion);
      return { score, details };
    }),
});
