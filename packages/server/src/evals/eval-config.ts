import { readFile } from "node:fs/promises";
import { z } from "zod";
import { InvalidEvalConfigError, UnknownMetricError } from "./eval-errors.js";
import { createEvalMetrics, type EvalMetricRegistry } from "./eval-metrics.js";
import { wireObject, type EvalMetric } from "./eval-types.js";
import { loadCustomMetric, type CustomMetricScope } from "./metrics/custom-metric.js";
import type { BaseCriterion, EvalMetricDefinition } from "./metrics/metric-definition.js";

/** A custom metric of `test_config.json` (ADK's CustomMetricConfig). */
export interface CustomMetricConfig {
  /** `name`: the function (ADK's dotted module path, or `./file.ts#export`). */
  codeConfig: { name: string };
  metricInfo?: { description?: string; minValue?: number; maxValue?: number };
  description: string;
}

/** The LLM-backed user simulator's settings (ADK's LlmBackedUserSimulatorConfig; extra fields kept). */
export interface UserSimulatorConfig {
  model: string;
  modelConfiguration?: Record<string, unknown>;
  /** Turns at most, the starting prompt included; -1: no limit. */
  maxAllowedInvocations: number;
  /** A prompt template replacing the default one. */
  customInstructions?: string;
  [key: string]: unknown;
}

/** A `test_config.json`: criteria by metric name, custom metrics, and the user simulator's settings. */
export interface EvalConfig {
  /** Metric name → a bare threshold or a criterion object (as written; validated by the metric). */
  criteria: Record<string, number | Record<string, unknown>>;
  customMetrics?: Record<string, CustomMetricConfig>;
  userSimulatorConfig?: UserSimulatorConfig;
}

/** ADK's default when no config is given. */
export const DEFAULT_EVAL_CONFIG: Readonly<EvalConfig> = Object.freeze({
  criteria: { tool_trajectory_avg_score: 1, response_match_score: 0.8 },
});

const customMetricSchema = wireObject({
  codeConfig: wireObject({ name: z.string().min(1), args: z.array(z.unknown()).optional() }).refine(
    (c) => !c.args || c.args.length === 0,
    { message: "args are not supported for custom metrics", path: ["args"] },
  ),
  metricInfo: wireObject({
    description: z.string().optional(),
    minValue: z.number().optional(),
    maxValue: z.number().optional(),
  }).optional(),
  description: z.string().default(""),
});

const evalConfigSchema = wireObject({
  criteria: z.record(z.string(), z.union([z.number(), z.record(z.string(), z.unknown())])).default({}),
  customMetrics: z.record(z.string(), customMetricSchema).nullish(),
  userSimulatorConfig: wireObject({
    model: z.string().min(1).default("gemini-2.5-flash"),
    modelConfiguration: z.record(z.string(), z.unknown()).optional(),
    maxAllowedInvocations: z.number().int().min(-1).default(20),
    customInstructions: z.string().optional(),
  }).nullish(),
});

const SNAKE: Record<string, string> = {
  customMetrics: "custom_metrics",
  userSimulatorConfig: "user_simulator_config",
  codeConfig: "code_config",
  metricInfo: "metric_info",
  minValue: "min_value",
  maxValue: "max_value",
  maxAllowedInvocations: "max_allowed_invocations",
  modelConfiguration: "model_configuration",
  customInstructions: "custom_instructions",
  judgeModelOptions: "judge_model_options",
  judgeModel: "judge_model",
  numSamples: "num_samples",
  judgeModelConfig: "judge_model_config",
  matchType: "match_type",
  ignoreArgs: "ignore_args",
  argMatchers: "arg_matchers",
  rubricId: "rubric_id",
  rubricContent: "rubric_content",
  textProperty: "text_property",
  evaluateIntermediateNlResponses: "evaluate_intermediate_nl_responses",
  stopSignal: "stop_signal",
};

/** A zod issue as `field.path: message`, in ADK's snake_case field names. */
function describeIssue(prefix: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const path = [prefix, ...(issue?.path ?? []).map((p) => (typeof p === "string" ? (SNAKE[p] ?? p) : String(p)))]
    .filter((p) => p !== "")
    .join(".");
  return `${path || "(root)"}: ${issue?.message ?? "invalid"}`;
}

export interface ParseEvalConfigOptions {
  /** The metrics a criterion may name (default: the built-in ones); custom metrics are added. */
  metrics?: ReadonlyMap<string, EvalMetricDefinition>;
  /** Named in error messages (a file path). */
  source?: string;
}

/**
 * Validates a `test_config.json` as ADK Python writes it (snake_case or camelCase): every
 * criterion names a known or custom metric and satisfies that metric's criterion schema
 * (`match_type`, `judge_model_options`, `rubrics`, …). Throws InvalidEvalConfigError or
 * UnknownMetricError naming the field.
 */
export function parseEvalConfig(raw: unknown, options: ParseEvalConfigOptions = {}): EvalConfig {
  const where = options.source ? `${options.source}: ` : "";
  const parsed = evalConfigSchema.safeParse(raw);
  if (!parsed.success) throw new InvalidEvalConfigError(`${where}${describeIssue("", parsed.error)}`);
  const data = parsed.data as unknown as EvalConfig;
  const metrics = options.metrics ?? createEvalMetrics();
  const custom = data.customMetrics ?? {};
  for (const [name, value] of Object.entries(data.criteria)) {
    const definition = metrics.get(name);
    if (!definition) {
      if (name in custom) continue;
      throw new UnknownMetricError(name, [...metrics.keys()], `${where}criteria.${name}`);
    }
    resolveCriterion({ metricName: name, ...toMetricFields(value) }, definition, `${where}criteria.${name}`);
  }
  for (const name of Object.keys(custom))
    if (!(name in data.criteria))
      throw new InvalidEvalConfigError(`${where}custom_metrics.${name}: no criterion names it (add criteria.${name})`);
  const config: EvalConfig = { criteria: data.criteria };
  if (data.customMetrics) config.customMetrics = data.customMetrics;
  if (data.userSimulatorConfig) config.userSimulatorConfig = data.userSimulatorConfig;
  return config;
}

/** Reads and validates a `test_config.json` (see `parseEvalConfig`). */
export async function loadEvalConfig(path: string, options: ParseEvalConfigOptions = {}): Promise<EvalConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new InvalidEvalConfigError(`${path}: cannot be read (${(error as Error).message})`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidEvalConfigError(`${path}: not valid JSON (${(error as Error).message})`, { cause: error });
  }
  return parseEvalConfig(raw, { ...options, source: options.source ?? path });
}

function toMetricFields(value: number | Record<string, unknown>): Pick<EvalMetric, "threshold" | "criterion"> {
  if (typeof value === "number") return { threshold: value };
  return { ...(typeof value.threshold === "number" ? { threshold: value.threshold } : {}), criterion: value };
}

/** The run's metrics of a config (ADK's get_eval_metrics_from_config), in the order written. */
export function evalMetricsFromConfig(config: EvalConfig): EvalMetric[] {
  return Object.entries(config.criteria).map(([metricName, value]) => {
    const path = config.customMetrics?.[metricName]?.codeConfig.name;
    return { metricName, ...toMetricFields(value), ...(path ? { customFunctionPath: path } : {}) };
  });
}

/** The config's custom metrics, by name. */
export function customMetricConfigs(config: EvalConfig): [string, CustomMetricConfig][] {
  return Object.entries(config.customMetrics ?? {});
}

/**
 * The registry plus the config's custom metrics, loaded from the app's code (see
 * `loadCustomMetric`). The given registry is not changed.
 */
export async function withCustomMetrics(
  registry: ReadonlyMap<string, EvalMetricDefinition>,
  config: EvalConfig,
  scope: CustomMetricScope,
): Promise<EvalMetricRegistry> {
  const out: EvalMetricRegistry = new Map(registry);
  for (const [name, custom] of customMetricConfigs(config))
    out.set(
      name,
      await loadCustomMetric(name, custom.codeConfig.name, scope, {
        ...custom.metricInfo,
        description: custom.metricInfo?.description ?? (custom.description || undefined),
      }),
    );
  return out;
}

/**
 * A metric's criterion, validated by its definition, with the threshold settled: the
 * criterion's, else the metric's, else the metric's default (none for an informational one).
 * Throws InvalidEvalConfigError naming `field`.
 */
export function resolveCriterion(
  metric: EvalMetric,
  definition: EvalMetricDefinition,
  field = `eval_metrics.${metric.metricName}`,
): BaseCriterion {
  const given = { ...metric.criterion };
  if (typeof given.threshold !== "number" && metric.threshold !== undefined) given.threshold = metric.threshold;
  if (given.threshold === undefined && !definition.informational) given.threshold = definition.defaultThreshold ?? 1;
  const parsed = definition.criterionSchema.safeParse(given);
  if (!parsed.success) throw new InvalidEvalConfigError(describeIssue(field, parsed.error));
  const criterion = parsed.data;
  const { minValue, maxValue } = definition.info.metricValueInfo.interval;
  if (
    !definition.lowerIsBetter &&
    criterion.threshold !== undefined &&
    (criterion.threshold < minValue || criterion.threshold > maxValue)
  )
    throw new InvalidEvalConfigError(
      `${field}.threshold: ${criterion.threshold} is outside the metric's range [${minValue}, ${maxValue}]`,
    );
  if (definition.lowerIsBetter && criterion.threshold !== undefined && criterion.threshold < 0)
    throw new InvalidEvalConfigError(`${field}.threshold: must be 0 or more`);
  return criterion;
}
