import type { LiveRequestQueue } from "../agents/live-request-queue.js";
import type { RunConfig } from "../agents/run-config.js";
import { InvocationContext } from "../context/invocation-context.js";
import { newInvocationId } from "../events/event.js";
import type { Session } from "../sessions/session.js";
import { resolveBudget } from "../usage/budget.js";
import type { Runner } from "./runner.js";
import { newUsageTracker } from "./run-usage.js";

/** What a run takes from its runner: public fields of the `Runner`. */
export type RunnerView = Pick<
  Runner,
  | "appName"
  | "agent"
  | "sessionService"
  | "artifactService"
  | "memoryService"
  | "credentialService"
  | "credentialExchangers"
  | "modelRegistry"
  | "pluginManager"
  | "contextCacheConfig"
  | "contentsCache"
  | "usageCache"
  | "budget"
  | "prices"
  | "resumability"
>;

export interface RunContextInit {
  session: Session;
  runConfig: RunConfig;
  signal?: AbortSignal;
  /** Default: a new `e-<uuid>`. */
  invocationId?: string;
  liveRequestQueue?: LiveRequestQueue;
  /** The runner's clock for usage durations and time budgets (default `Date.now`). */
  now?: () => number;
}

/**
 * The root invocation context of one run, on the runner's root agent: the runner's services,
 * plugins and caches, and a fresh usage tracker whose budget is the runner's under the run's
 * own (`RunConfig.budget` wins field by field).
 */
export function newRunContext(runner: RunnerView, init: RunContextInit): InvocationContext {
  return new InvocationContext({
    invocationId: init.invocationId ?? newInvocationId(),
    agent: runner.agent,
    session: init.session,
    sessionService: runner.sessionService,
    artifactService: runner.artifactService,
    memoryService: runner.memoryService,
    credentialService: runner.credentialService,
    credentialExchangers: runner.credentialExchangers,
    pluginManager: runner.pluginManager,
    modelRegistry: runner.modelRegistry,
    contextCacheConfig: runner.contextCacheConfig,
    contentsCache: runner.contentsCache,
    runConfig: init.runConfig,
    liveRequestQueue: init.liveRequestQueue,
    signal: init.signal,
    appName: runner.appName,
    resumability: runner.resumability,
    usage: newUsageTracker({
      session: init.session,
      usageCache: runner.usageCache,
      prices: runner.prices,
      budget: resolveBudget(runner.budget, init.runConfig.budget),
      now: init.now,
    }),
  });
}
