import { warmUpRuntime } from "@agentkit/core/internal";
import type { AgentLoader } from "../agent-loader.js";
import { warmUpRequestParsing } from "../http/warm-up-request-parsing.js";
import type { ServerLogger } from "../server-logger.js";
import type { RunnerCache } from "./runner-cache.js";

/** One app after warm-up: its models ready, or why it is not. */
export interface AppWarmUp {
  readonly app: string;
  /** Model names whose adapters and SDK clients are loaded. */
  readonly models: string[];
  /** Why the app or one of its models is not ready (the first request will report it too). */
  readonly problems: string[];
}

/** What `AgentServer.warmUp()` did. */
export interface ServerWarmUp {
  /** The apps warmed up, in order (all of them unless the server closed first). */
  readonly apps: AppWarmUp[];
  /** False when the server began closing before the warm-up ended (it stops between steps). */
  readonly completed: boolean;
  /**
   * Whether the agent-flow routes answered a few flows over loopback HTTP on a private server
   * (`warm-up-http.ts`). False when that step was not reached or failed (a warning says why);
   * requests are served either way.
   */
  readonly routes: boolean;
  /** Wall time of the whole warm-up, in milliseconds. */
  readonly ms: number;
}

/** When the warm-up's next step (an app, then the framework's code paths) may run. */
export interface WarmUpPacing {
  /** Resolves when the next step may start (at once, or when no request is in flight). */
  turn(): Promise<void>;
  /** True once the server is closing: the warm-up ends before its next step, silently. */
  stopped(): boolean;
}

const UNPACED: WarmUpPacing = { turn: async () => {}, stopped: () => false };

/** The warm-up's steps besides loading the apps (the server passes its own; tests may leave one out). */
export interface WarmUpSteps {
  /** Pacing of the steps; at once by default. */
  pacing?: WarmUpPacing;
  /** Runs the agent-flow routes over HTTP once (`warmUpHttp` on the server's own factory). */
  routes?: () => Promise<unknown>;
}

/**
 * Loads every app (its module or YAML, its runner and plugins), loads the adapter and SDK
 * client of every model its agents name, runs the framework's own code paths once on a private
 * agent, builds the agent-flow routes' request parsers and runs a few flows through those routes
 * on a private server (`steps.routes`), so no request loads or builds any of it and Node's HTTP
 * code has run (the first flows still run before V8 has optimized the code). Never throws for an
 * app that fails: it is logged and reported, and requests to it keep answering with the load
 * error.
 * Each step starts when `pacing` gives it its turn; a request for an app not warmed yet loads
 * it itself (the runner cache shares one load between them).
 */
export async function warmUpApps(
  loader: AgentLoader,
  runners: RunnerCache,
  logger: ServerLogger,
  steps: WarmUpSteps = {},
): Promise<ServerWarmUp> {
  const pacing = steps.pacing ?? UNPACED;
  const started = performance.now();
  const apps: AppWarmUp[] = [];
  // Stopped between steps, so always before the routes step ran.
  const stopped = () => ({ apps, completed: false, routes: false, ms: Math.round(performance.now() - started) });
  for (const app of await loader.listApps()) {
    await pacing.turn();
    if (pacing.stopped()) return stopped();
    const problems: string[] = [];
    let models: string[] = [];
    try {
      const report = await (await runners.runnerFor(app)).warmUp();
      models = report.models;
      for (const f of report.failures)
        problems.push(`agent "${f.agent}"${f.model ? ` model "${f.model}"` : ""}: ${messageOf(f.error)}`);
    } catch (error) {
      problems.push(messageOf(error));
    }
    // A load cut short by the server closing is not the app's problem.
    if (pacing.stopped()) return stopped();
    for (const problem of problems) logger.warn(`Warm-up of app "${app}": ${problem}`);
    apps.push({ app, models, problems });
  }
  await pacing.turn();
  if (pacing.stopped()) return stopped();
  await warmUpRuntime();
  warmUpRequestParsing();
  let routes = false;
  if (steps.routes) {
    await pacing.turn();
    if (pacing.stopped()) return stopped();
    try {
      await steps.routes();
      routes = true;
    } catch (error) {
      logger.warn(`Warm-up of the HTTP routes (a private server on 127.0.0.1) failed: ${messageOf(error)}`);
    }
  }
  return { apps, completed: true, routes, ms: Math.round(performance.now() - started) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
