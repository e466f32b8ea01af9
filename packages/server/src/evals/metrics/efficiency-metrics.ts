import { PriceTable, type ModelPrice } from "@agentkit/core";
import type { Invocation } from "../eval-types.js";
import { toolUsesOf } from "../invocation-data.js";
import { baseCriterionSchema } from "./criteria.js";
import {
  defineMetric,
  type BaseCriterion,
  type EvalMetricDefinition,
  type InvocationScore,
  type MetricOutput,
} from "./metric-definition.js";

const COUNT = { minValue: 0, maxValue: Number.MAX_SAFE_INTEGER, openAtMin: false, openAtMax: false };
const NO_USAGE = "the turn has no usage record (usage is recorded when the eval runs the agent)";

/**
 * An efficiency figure per turn; the case's figure is the sum over its turns. Informational
 * without a threshold; with one, the case passes at or below it (lower is better).
 */
function efficiencyMetric(
  metricName: string,
  description: string,
  measure: (turn: Invocation) => InvocationScore,
): EvalMetricDefinition<BaseCriterion> {
  return defineMetric<BaseCriterion>({
    info: { metricName, description, metricValueInfo: { interval: COUNT } },
    criterionSchema: baseCriterionSchema,
    lowerIsBetter: true,
    informational: true,
    async evaluateInvocations(input): Promise<MetricOutput> {
      const perInvocation = input.actual.map(measure);
      const skipped = perInvocation.find((v): v is { notEvaluated: string } => "notEvaluated" in v);
      const total = perInvocation.reduce((sum, v) => sum + ("score" in v ? v.score : 0), 0);
      return { perInvocation, overall: skipped ?? { score: total } };
    },
  });
}

export interface EfficiencyOptions {
  /** Prices for `cost_usd`, on top of (or instead of) core's defaults: a table or a record by model name. */
  prices?: PriceTable | Record<string, ModelPrice>;
}

/** `tool_call_count`, `model_call_count`, `token_count`, `latency_seconds` and `cost_usd`. */
export function efficiencyMetrics(options: EfficiencyOptions = {}): EvalMetricDefinition<BaseCriterion>[] {
  const prices = PriceTable.from(options.prices);
  return [
    efficiencyMetric("tool_call_count", "Tool calls the agent made (sum over the case's turns).", (turn) => ({
      score: toolUsesOf(turn).length,
    })),
    efficiencyMetric("model_call_count", "Model calls the agent made (sum over the case's turns).", (turn) =>
      turn.usage ? { score: turn.usage.modelCalls } : { notEvaluated: NO_USAGE },
    ),
    efficiencyMetric(
      "token_count",
      "Tokens the agent's model calls used, input and output (sum over turns).",
      (turn) => (turn.usage ? { score: turn.usage.tokens.total } : { notEvaluated: NO_USAGE }),
    ),
    efficiencyMetric("latency_seconds", "Wall-clock seconds the agent took (sum over the case's turns).", (turn) => {
      if (turn.duration !== undefined) return { score: turn.duration };
      return turn.usage ? { score: turn.usage.durationMs / 1000 } : { notEvaluated: NO_USAGE };
    }),
    efficiencyMetric("cost_usd", "USD the agent's model calls cost, from the price table (sum over turns).", (turn) => {
      if (!turn.usage) return { notEvaluated: NO_USAGE };
      const priced = prices.priceRollup(structuredClone(turn.usage));
      if (priced.costUsd === undefined)
        return { notEvaluated: `no price for ${priced.unpricedModels?.join(", ")}: add it to the eval's price table` };
      return { score: priced.costUsd, details: { models: Object.keys(priced.models) } };
    }),
  ];
}
