import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigurationError } from "@agentkit/core";
import { parseCodeReference } from "../../loader/code-reference.js";
import { baseCriterionSchema } from "./criteria.js";
import { judged } from "./judge-pool.js";
import {
  defineMetric,
  meanOf,
  UNIT_INTERVAL,
  type BaseCriterion,
  type EvalMetricDefinition,
  type InvocationScore,
  type MetricInfo,
  type MetricInput,
  type MetricOutput,
} from "./metric-definition.js";

/**
 * A custom metric's function: it gets the case's turns and its criterion and returns a score
 * (a number, `{ score, details }`, `{ notEvaluated }`) or per-turn verdicts (`{ perInvocation,
 * overall? }`), maybe as a promise.
 */
export type CustomMetricFunction = (
  input: MetricInput<BaseCriterion & Record<string, unknown>>,
) => unknown | Promise<unknown>;

/** Where a custom metric's code may come from: the app's folder, as for YAML code references. */
export interface CustomMetricScope {
  /** The agents directory (absolute). */
  agentsDir: string;
  /** The app's folder (absolute, directly under `agentsDir`). */
  appDir: string;
  /** The file naming the function (test_config.json): `./x.ts#fn` is relative to it. Default: in the app folder. */
  fromFile?: string;
  /** Imports a module by URL (default: `import()`). */
  importModule?: (url: string) => Promise<unknown>;
}

function toScore(value: unknown): InvocationScore | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return { score: value };
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.notEvaluated === "string") return { notEvaluated: v.notEvaluated };
  if (typeof v.score === "number" && Number.isFinite(v.score))
    return typeof v.details === "object" && v.details !== null
      ? { score: v.score, details: v.details as Record<string, unknown> }
      : { score: v.score };
  return undefined;
}

/** A custom function's answer as a metric output; a malformed answer is NOT_EVALUATED, naming the metric. */
function toOutput(metricName: string, value: unknown): MetricOutput {
  const bad = { notEvaluated: `custom metric ${metricName} returned neither a score nor per-turn verdicts` };
  if (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { perInvocation?: unknown }).perInvocation)
  ) {
    const v = value as { perInvocation: unknown[]; overall?: unknown };
    const perInvocation = v.perInvocation.map((p) => toScore(p) ?? bad);
    return { perInvocation, overall: v.overall === undefined ? meanOf(perInvocation) : (toScore(v.overall) ?? bad) };
  }
  const overall = toScore(value) ?? bad;
  return { perInvocation: [], overall };
}

/**
 * Loads a custom metric (ADK's `custom_function_path`): `module.path.function` (ADK's dotted
 * form, from the agents directory), or `./file.ts#function` relative to `fromFile`. The code
 * must be in the app's folder (or a `_`-shared folder, or an installed package) under the
 * loader's rules (docs/security.md "Dev tooling"); a refused or missing reference is a
 * ConfigurationError naming it. Only developer-written files name code: never a request body.
 */
export async function loadCustomMetric(
  metricName: string,
  reference: string,
  scope: CustomMetricScope,
  info?: Partial<MetricInfo> & { minValue?: number; maxValue?: number },
): Promise<EvalMetricDefinition> {
  const fromFile = scope.fromFile ?? join(scope.appDir, "test_config.json");
  const target = parseCodeReference(reference, fromFile, {
    agentsDir: scope.agentsDir,
    appDir: scope.appDir,
    restricted: false,
  });
  const where = `custom_metrics.${metricName}.code_config.name`;
  if (typeof target === "string") throw new ConfigurationError(`${where}: ${target}`);
  const importModule = scope.importModule ?? ((url: string) => import(url));
  const namespace = (await importModule(
    target.kind === "file" ? pathToFileURL(target.file).href : target.specifier,
  )) as Record<string, unknown>;
  const fn = namespace[target.exportName];
  if (typeof fn !== "function")
    throw new ConfigurationError(`${where}: "${reference}" exports no function ${target.exportName}`);
  const interval = {
    ...UNIT_INTERVAL,
    ...(info?.minValue !== undefined ? { minValue: info.minValue } : {}),
    ...(info?.maxValue !== undefined ? { maxValue: info.maxValue } : {}),
  };
  return defineMetric<BaseCriterion>({
    info: {
      metricName,
      description: info?.description ?? `Custom metric (${reference}).`,
      metricValueInfo: info?.metricValueInfo ?? { interval },
    },
    criterionSchema: baseCriterionSchema,
    defaultThreshold: interval.maxValue,
    async evaluateInvocations(input) {
      const result = await judged(input.signal, async () =>
        toOutput(
          metricName,
          await (fn as CustomMetricFunction)(input as MetricInput<BaseCriterion & Record<string, unknown>>),
        ),
      );
      return "notEvaluated" in result ? { perInvocation: [], overall: result } : result;
    },
  });
}
