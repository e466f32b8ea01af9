import { AgentKitError } from "@agentkit/core";
import { evalMetricsFromConfig, parseEvalConfig, type EvalMetric } from "@agentkit/server/devtools";
import { CliUsageError } from "./cli-usage-error.js";

/** ADK's `adk eval` defaults when no test_config.json is given. */
export const DEFAULT_CLI_CRITERIA: readonly EvalMetric[] = [
  { metricName: "tool_trajectory_avg_score", threshold: 1 },
  { metricName: "response_match_score", threshold: 0.8 },
];

export interface EvalCriteria {
  metrics: EvalMetric[];
  /** `judge_model_options.judge_model` of the criteria, if any names one. */
  judgeModel?: string;
  /** Criterion fields this build reads but does not apply (for a warning); none today. */
  ignored: string[];
  /** `user_simulator_config`: the model playing the user of conversation-scenario cases. */
  userSimulator?: { model: string; maxAllowedInvocations?: number };
}

/**
 * The metrics of a test_config.json (ADK's shape): `criteria` maps a metric name to a bare
 * threshold or a criterion object `{threshold, ...}`. Unknown metrics and bad thresholds are
 * usage errors naming the field.
 */
export function criteriaFromTestConfig(raw: unknown, file: string, known: readonly string[]): EvalCriteria {
  const fail = (field: string, why: string): never => {
    throw new CliUsageError(`${file}: ${field}: ${why}`);
  };
  if (!isObject(raw)) return fail("(root)", "expected a JSON object with `criteria`");
  const criteria = raw.criteria;
  if (!isObject(criteria) || Object.keys(criteria).length === 0)
    return fail("criteria", "expected an object mapping metric names to thresholds");
  const metrics: EvalMetric[] = [];
  const ignored: string[] = [];
  const judges = new Set<string>();
  for (const [name, value] of Object.entries(criteria)) {
    const field = `criteria.${name}`;
    if (!known.includes(name)) fail(field, `unknown metric (known: ${known.join(", ")})`);
    const threshold = isObject(value) ? value.threshold : value;
    if (typeof threshold !== "number" || !Number.isFinite(threshold) || threshold < 0)
      fail(isObject(value) ? `${field}.threshold` : field, "expected a non-negative number");
    if (isObject(value)) {
      const judge = value.judge_model_options ?? value.judgeModelOptions;
      const judgeModel = isObject(judge) ? (judge.judge_model ?? judge.judgeModel) : undefined;
      if (judgeModel !== undefined) {
        if (typeof judgeModel !== "string" || judgeModel === "")
          fail(`${field}.judge_model_options.judge_model`, "expected a model name");
        judges.add(judgeModel as string);
      }
    }
  }
  if (judges.size > 1)
    fail("criteria", `one judge model per run, got ${[...judges].join(", ")}: run the judged metrics separately`);
  const [judgeModel] = judges;
  const userSimulator = userSimulatorConfig(raw.user_simulator_config ?? raw.userSimulatorConfig, fail);
  // Every criterion field (match_type, ignore_args, arg_matchers, judge options, rubrics, ...) as
  // the server's eval config parser reads it, so the CLI scores exactly as the eval routes do.
  try {
    metrics.push(...evalMetricsFromConfig(parseEvalConfig(raw, { source: file })));
  } catch (error) {
    if (error instanceof AgentKitError) throw new CliUsageError(error.message);
    throw error;
  }
  return { metrics, ignored, ...(judgeModel ? { judgeModel } : {}), ...(userSimulator ? { userSimulator } : {}) };
}

function userSimulatorConfig(
  raw: unknown,
  fail: (field: string, why: string) => never,
): EvalCriteria["userSimulator"] | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) return fail("user_simulator_config", "expected an object");
  const model = raw.model;
  if (typeof model !== "string" || model === "")
    return fail("user_simulator_config.model", "expected a model name (any model of the registry)");
  const max = raw.max_allowed_invocations ?? raw.maxAllowedInvocations;
  if (max !== undefined && (typeof max !== "number" || !Number.isInteger(max) || max < -1 || max === 0))
    fail("user_simulator_config.max_allowed_invocations", "expected a positive integer, or -1 for no limit");
  return { model, ...(typeof max === "number" ? { maxAllowedInvocations: max } : {}) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
