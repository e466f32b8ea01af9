import { existsSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import {
  App,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  Runner,
  type ModelRegistry,
} from "@agentkit/core";
import { createModelRegistry } from "@agentkit/models";
import { createDirectoryAgentLoader, type AgentLoader } from "@agentkit/server";
import {
  createEvalMetrics,
  createFileEvalStore,
  EvalStatus,
  parseEvalSet,
  runEvalSet,
  ToolSimulationPlugin,
  type EvalMetric,
  type EvalSet,
  type EvalStore,
  evalSetResultToAdkJson,
} from "@agentkit/server/devtools";
import { CliUsageError } from "./cli-usage-error.js";
import { describeIssue } from "./describe-issue.js";
import { readJsonFile } from "./read-json-file.js";
import { devServerBuiltInCodeExecutors } from "./dev-server-code-executors.js";
import { devServerBuiltInTools } from "./dev-server-tools.js";
import { findRegressions, parseBaselineResults } from "./eval-baseline.js";
import { criteriaFromTestConfig, DEFAULT_CLI_CRITERIA, type EvalCriteria } from "./eval-criteria.js";
import { evalJunitXml, formatEvalTable, progressBar, type EvalRunReport } from "./eval-report.js";
import type { EvalCommandOptions } from "./parse-eval-args.js";

export interface EvalCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Cancels the run (the CLI wires SIGINT/SIGTERM to it). */
  signal?: AbortSignal;
}

/** The apps of a target: one app folder, or an agents directory holding app folders. */
interface Target {
  agentsDir: string;
  /** Set when the target is one app's folder. */
  appName?: string;
}

/** One eval set to run: where it came from, its app, the cases asked for, its metrics. */
interface PlannedSet {
  spec: string;
  appName: string;
  evalSet: EvalSet;
  evalCaseIds?: string[];
  criteria: EvalCriteria;
}

/** Where the dev server keeps eval sets and results of an agents directory (also the CLI's). */
export function evalStoreDir(agentsDir: string): string {
  return join(agentsDir, ".agentkit", "evals");
}

/**
 * Resolves `<agents_dir|app_dir>`: a folder the directory loader sees as an app of its parent
 * (agent.ts, agent.js, root_agent.yaml, …) is one app; any other folder is an agents directory.
 */
export async function resolveEvalTarget(target: string): Promise<Target> {
  const dir = resolve(target);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliUsageError(`${target}: no such directory`);
  const parent = createDirectoryAgentLoader({ agentsDir: dirname(dir) });
  try {
    const isApp = (await parent.listApps()).includes(basename(dir));
    return isApp ? { agentsDir: dirname(dir), appName: basename(dir) } : { agentsDir: dir };
  } finally {
    await parent.close();
  }
}

/**
 * `agentkit eval`: runs eval sets (files, or ids of the dev UI's store) against their app in
 * this process, with in-memory sessions, then prints a table, writes the results (ADK's
 * EvalSetResult JSON, also kept in the store's history for the dev UI) and JUnit XML, and
 * compares with a baseline. Resolves to the exit code: 0 when every case passed and nothing
 * regressed, 1 otherwise, 130 when cancelled.
 */
export async function runEvalCommand(options: EvalCommandOptions, io: EvalCommandIo): Promise<number> {
  const target = await resolveEvalTarget(options.target);
  const store = createFileEvalStore({ dir: evalStoreDir(target.agentsDir) });
  const baseline = options.baselineFile
    ? parseBaselineResults(await readJsonFile(options.baselineFile), options.baselineFile)
    : undefined;
  const known = [...createEvalMetrics().keys()];
  const explicitConfig = options.configFile
    ? criteriaFromTestConfig(await readJsonFile(options.configFile), options.configFile, known)
    : undefined;
  const plans: PlannedSet[] = [];
  for (const spec of options.evalSets) plans.push(await planSet(spec, target, store, explicitConfig, known));
  for (const ignored of new Set(plans.flatMap((p) => p.criteria.ignored)))
    io.stderr.write(`agentkit eval: ${ignored} is not applied by this version (threshold only)\n`);

  const modelRegistry = createModelRegistry();
  const loader = createDirectoryAgentLoader({
    agentsDir: target.agentsDir,
    modelRegistry,
    builtInTools: devServerBuiltInTools(),
    builtInCodeExecutors: devServerBuiltInCodeExecutors(),
  });
  const sessionService = new InMemorySessionService();
  const runners = new Map<string, Runner>();
  const toolSimulator = new ToolSimulationPlugin();
  const bar = io.stderr.isTTY ? progressBar(io.stderr) : undefined;
  const total = plans.reduce((n, p) => n + (p.evalCaseIds?.length ?? p.evalSet.evalCases.length), 0);
  let done = 0;
  let running = 0;
  const reports: EvalRunReport[] = [];
  try {
    bar?.update(0, total, 0);
    for (const plan of plans) {
      const runner = await runnerFor(plan.appName, loader, modelRegistry, sessionService, runners, toolSimulator);
      const judgeModel = plan.criteria.judgeModel ? modelRegistry.resolve(plan.criteria.judgeModel) : undefined;
      const simulator = plan.criteria.userSimulator;
      const started = new Map<string, number>();
      const durations: Record<string, number> = {};
      const result = await runEvalSet({
        runner,
        sessionService,
        appName: plan.appName,
        evalSet: plan.evalSet,
        ...(plan.evalCaseIds ? { evalCaseIds: plan.evalCaseIds } : {}),
        metrics: plan.criteria.metrics,
        definitions: createEvalMetrics(judgeModel ? { judgeModel } : {}),
        parallel: options.parallel,
        toolSimulator,
        ...(simulator
          ? {
              userSimulator: {
                model: modelRegistry.resolve(simulator.model),
                ...(simulator.maxAllowedInvocations ? { maxAllowedInvocations: simulator.maxAllowedInvocations } : {}),
              },
            }
          : {}),
        ...(io.signal ? { signal: io.signal } : {}),
        onProgress: (p) => {
          if (p.kind === "case_started") {
            running += 1;
            started.set(p.evalId, performance.now());
          } else {
            running -= 1;
            done += 1;
            durations[p.evalId] = (performance.now() - (started.get(p.evalId) ?? performance.now())) / 1000;
          }
          bar?.update(done, total, running);
        },
      });
      reports.push({ appName: plan.appName, result, durations });
      await store.putEvalSetResult(plan.appName, result);
    }
  } catch (error) {
    bar?.done();
    if (io.signal?.aborted) {
      io.stderr.write("agentkit eval: cancelled\n");
      return 130;
    }
    throw error;
  } finally {
    await Promise.allSettled([...runners.values()].map((r) => r.close()));
    await loader.close();
  }
  bar?.done();

  const results = reports.map((r) => r.result);
  const regressions = baseline ? findRegressions(results, baseline, options.maxRegression) : [];
  io.stdout.write(formatEvalTable(reports, regressions));
  // ADK Python's field names (snake_case), so its tools read the file too.
  if (options.outputFile)
    await writeOutput(options.outputFile, `${JSON.stringify(results.map(evalSetResultToAdkJson), null, 2)}\n`);
  if (options.junitFile) await writeOutput(options.junitFile, evalJunitXml(reports, regressions));
  const allPassed = results.every((r) => r.evalCaseResults.every((c) => c.finalEvalStatus === EvalStatus.PASSED));
  return allPassed && regressions.length === 0 ? 0 : 1;
}

async function planSet(
  spec: string,
  target: Target,
  store: EvalStore,
  explicit: EvalCriteria | undefined,
  known: readonly string[],
): Promise<PlannedSet> {
  // `set.evalset.json:case_a,case_b` runs only those cases (unless the whole spec is a file).
  const filter = existsSync(spec) ? undefined : /^(.+):([^:/\\]+)$/.exec(spec);
  const source = filter ? filter[1]! : spec;
  const evalCaseIds = filter
    ? filter[2]!
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
  let appName: string;
  let evalSet: EvalSet;
  let configNextToSet: string | undefined;
  if (existsSync(source) && statSync(source).isFile()) {
    const file = resolve(source);
    appName = target.appName ?? appOfFile(file, target.agentsDir, spec);
    try {
      evalSet = parseEvalSet(await readJsonFile(source));
    } catch (error) {
      if (error instanceof CliUsageError) throw error;
      throw new CliUsageError(`${source}: not a valid eval set (${describeIssue(error)})`);
    }
    configNextToSet = join(dirname(file), "test_config.json");
  } else {
    const [app, id] = target.appName ? [target.appName, source] : splitAppId(source);
    appName = app;
    const found = await store.getEvalSet(appName, id).catch(() => undefined);
    if (!found) {
      const ids = await store.listEvalSets(appName).catch(() => [] as string[]);
      throw new CliUsageError(
        `${spec}: no such eval set file, and no eval set "${id}" in app ${appName} ` +
          `(${ids.length ? `known: ${ids.join(", ")}` : "it has none"})`,
      );
    }
    evalSet = found;
  }
  for (const id of evalCaseIds ?? [])
    if (!evalSet.evalCases.some((c) => c.evalId === id))
      throw new CliUsageError(`${spec}: eval set ${evalSet.evalSetId} has no case "${id}"`);
  // As ADK's AgentEvaluator: a test_config.json beside the eval set file applies to it.
  const criteria =
    explicit ??
    (configNextToSet && existsSync(configNextToSet)
      ? criteriaFromTestConfig(await readJsonFile(configNextToSet), configNextToSet, known)
      : { metrics: DEFAULT_CLI_CRITERIA.map((m): EvalMetric => ({ ...m })), ignored: [] });
  return { spec, appName, evalSet, ...(evalCaseIds ? { evalCaseIds } : {}), criteria };
}

/** The app folder (directly under the agents directory) an eval set file lives in. */
function appOfFile(file: string, agentsDir: string, spec: string): string {
  const rel = relative(agentsDir, file);
  const first = rel.split(sep)[0];
  if (!first || rel.startsWith("..") || isAbsolute(rel) || first === rel)
    throw new CliUsageError(
      `${spec}: cannot tell which app this eval set is for: keep it inside an app folder of ${agentsDir}, ` +
        "or pass the app folder instead of the agents directory",
    );
  return first;
}

function splitAppId(source: string): [string, string] {
  const [app, id, ...rest] = source.split("/");
  if (!app || !id || rest.length)
    throw new CliUsageError(
      `${source}: no such eval set file; with an agents directory, name stored eval sets as <app>/<eval_set_id>`,
    );
  return [app, id];
}

async function runnerFor(
  appName: string,
  loader: AgentLoader,
  modelRegistry: ModelRegistry,
  sessionService: InMemorySessionService,
  runners: Map<string, Runner>,
  toolSimulator: ToolSimulationPlugin,
): Promise<Runner> {
  const existing = runners.get(appName);
  if (existing) return existing;
  const loaded = await loader.loadApp(appName);
  const services = {
    sessionService,
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
  };
  // The app's own plugins run inside the evals as in a normal run; the tool simulation comes
  // first so a simulated tool answers before anything else (it acts on eval cases that ask for it only).
  const app = loaded.app;
  const runner = app
    ? new Runner({
        app: new App({
          name: app.name,
          rootAgent: app.rootAgent,
          plugins: [toolSimulator, ...app.plugins],
          eventsCompactionConfig: app.eventsCompactionConfig,
          contextCacheConfig: app.contextCacheConfig,
          modelRegistry: app.modelRegistry,
          budget: app.budget,
          prices: app.prices,
        }),
        appName,
        ...services,
        modelRegistry: app.modelRegistry ?? modelRegistry,
      })
    : new Runner({ appName, agent: loaded.rootAgent, plugins: [toolSimulator], ...services, modelRegistry });
  runners.set(appName, runner);
  return runner;
}

async function writeOutput(file: string, text: string): Promise<void> {
  await mkdir(dirname(resolve(file)), { recursive: true });
  await writeFile(file, text, "utf8");
}
