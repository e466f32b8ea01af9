import { CliUsageError } from "./cli-usage-error.js";
import { parse, str, strings } from "./cli-flags.js";

/** `agentkit eval <agents_dir|app_dir> <eval sets…> [flags]`. */
export interface EvalCommandOptions {
  /** An agents directory, or one app's folder. */
  target: string;
  /** Eval set files or ids, each maybe followed by `:case1,case2`. */
  evalSets: string[];
  /** test_config.json: the metrics (`criteria`) and their thresholds. */
  configFile?: string;
  outputFile?: string;
  junitFile?: string;
  /** Cases run at once (default 1). */
  parallel: number;
  /** A previous `--output` file to compare scores with. */
  baselineFile?: string;
  /** Largest allowed score drop against the baseline: `default` for every metric, else per metric name. */
  maxRegression: { default: number; perMetric: Record<string, number> };
}

/** `agentkit eval_set create|add_case <app_dir> <eval_set_id> [flags]`. */
export type EvalSetCommandOptions =
  | { action: "create"; appDir: string; evalSetId: string }
  | {
      action: "add_case";
      appDir: string;
      evalSetId: string;
      /** A session JSON file (as GET …/sessions/{id} answers): its turns become one case. */
      sessionFile?: string;
      /** The new case's id (default: from the session id). */
      evalId?: string;
      /** ADK's scenarios file (`{scenarios: [{starting_prompt, conversation_plan, …}]}`): one case each. */
      scenariosFile?: string;
    };

const EVAL_USAGE =
  "Usage: agentkit eval <agents_dir|app_dir> <evalset file or id>[:case,...]... [--config test_config.json] " +
  "[--output results.json] [--junit results.xml] [--parallel N] [--baseline previous.json [--max-regression X]]";

export function parseEvalArgs(args: string[]): EvalCommandOptions {
  const { values, positionals } = parse(
    args,
    {
      config: { type: "string" },
      output: { type: "string" },
      junit: { type: "string" },
      parallel: { type: "string" },
      baseline: { type: "string" },
      "max-regression": { type: "string", multiple: true },
    },
    "eval",
  );
  const [target, ...evalSets] = positionals;
  if (!target || evalSets.length === 0) throw new CliUsageError(EVAL_USAGE);
  const rawParallel = str(values, "parallel") ?? "1";
  const parallel = Number(rawParallel);
  if (!/^\d+$/.test(rawParallel) || parallel < 1 || parallel > 64)
    throw new CliUsageError(`--parallel must be an integer from 1 to 64, got "${rawParallel}".`);
  const maxRegression = { default: 0, perMetric: {} as Record<string, number> };
  for (const raw of strings(values, "max-regression")) {
    const [metric, value] = raw.includes("=") ? raw.split("=", 2) : [undefined, raw];
    const amount = Number(value);
    if (value === undefined || value.trim() === "" || !Number.isFinite(amount) || amount < 0)
      throw new CliUsageError(`--max-regression takes a non-negative number or <metric>=<number>, got "${raw}".`);
    if (metric) maxRegression.perMetric[metric] = amount;
    else maxRegression.default = amount;
  }
  const baselineFile = str(values, "baseline");
  if (!baselineFile && strings(values, "max-regression").length > 0)
    throw new CliUsageError("--max-regression needs --baseline <previous results.json>.");
  const optional = (flag: string, key: string) => {
    const v = str(values, flag);
    return v === undefined ? {} : { [key]: v };
  };
  return {
    target,
    evalSets,
    ...optional("config", "configFile"),
    ...optional("output", "outputFile"),
    ...optional("junit", "junitFile"),
    parallel,
    ...(baselineFile ? { baselineFile } : {}),
    maxRegression,
  };
}

const EVAL_SET_USAGE =
  "Usage: agentkit eval_set create <app_dir> <eval_set_id>\n" +
  "       agentkit eval_set add_case <app_dir> <eval_set_id> (--session <session.json> [--eval-id <id>] | " +
  "--scenarios <scenarios.json>)";

export function parseEvalSetArgs(args: string[]): EvalSetCommandOptions {
  const { values, positionals } = parse(
    args,
    { session: { type: "string" }, "eval-id": { type: "string" }, scenarios: { type: "string" } },
    "eval_set",
  );
  const [action, appDir, evalSetId, ...extra] = positionals;
  if ((action !== "create" && action !== "add_case") || !appDir || !evalSetId || extra.length)
    throw new CliUsageError(EVAL_SET_USAGE);
  const sessionFile = str(values, "session");
  const scenariosFile = str(values, "scenarios");
  const evalId = str(values, "eval-id");
  if (action === "create") {
    if (sessionFile || scenariosFile || evalId)
      throw new CliUsageError("agentkit eval_set create takes no --session, --scenarios or --eval-id: use add_case.");
    return { action, appDir, evalSetId };
  }
  if ((sessionFile === undefined) === (scenariosFile === undefined))
    throw new CliUsageError("agentkit eval_set add_case needs exactly one of --session <file> and --scenarios <file>.");
  if (evalId && !sessionFile) throw new CliUsageError("--eval-id applies to --session only.");
  return {
    action,
    appDir,
    evalSetId,
    ...(sessionFile ? { sessionFile } : {}),
    ...(scenariosFile ? { scenariosFile } : {}),
    ...(evalId ? { evalId } : {}),
  };
}
