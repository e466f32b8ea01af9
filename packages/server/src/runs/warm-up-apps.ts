import { warmUpRuntime } from "@agentkit/core/internal";
import type { AgentLoader } from "../agent-loader.js";
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
  readonly apps: AppWarmUp[];
  /** Wall time of the whole warm-up, in milliseconds. */
  readonly ms: number;
}

/**
 * Loads every app (its module or YAML, its runner and plugins), loads the adapter and SDK
 * client of every model its agents name, and runs the framework's own code paths once on a
 * private agent, so the first request costs what later ones do. Never throws for an app that
 * fails: it is logged and reported, and requests to it keep answering with the load error.
 */
export async function warmUpApps(
  loader: AgentLoader,
  runners: RunnerCache,
  logger: ServerLogger,
): Promise<ServerWarmUp> {
  const started = performance.now();
  const apps: AppWarmUp[] = [];
  for (const app of await loader.listApps()) {
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
    for (const problem of problems) logger.warn(`Warm-up of app "${app}": ${problem}`);
    apps.push({ app, models, problems });
  }
  await warmUpRuntime();
  return { apps, ms: Math.round(performance.now() - started) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
