import type { BaseAgent } from "../agents/base-agent.js";
import type { LiveRequestQueue } from "../agents/live-request-queue.js";
import type { RunConfig } from "../agents/run-config.js";
import type { BaseArtifactService } from "../artifacts/base-artifact-service.js";
import type { BaseCredentialService } from "../auth/base-credential-service.js";
import type { CredentialExchangerRegistry } from "../auth/credential-exchangers.js";
import { InvocationContext, type ResumabilityConfig } from "../context/invocation-context.js";
import { newInvocationId } from "../events/event.js";
import type { ContentsCache } from "../flows/contents-cache.js";
import type { BaseMemoryService } from "../memory/base-memory-service.js";
import type { ContextCacheConfig } from "../models/llm-request.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { PluginManager } from "../plugins/plugin-manager.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";
import { resolveBudget, type Budget } from "../usage/budget.js";
import type { PriceTable } from "../usage/price-table.js";
import { newUsageTracker } from "./run-usage.js";

/** What a run takes from its runner: the runner's public fields (a `Runner` is one). */
export interface RunnerView {
  readonly appName: string;
  readonly agent: BaseAgent;
  readonly sessionService: BaseSessionService;
  readonly artifactService?: BaseArtifactService;
  readonly memoryService?: BaseMemoryService;
  readonly credentialService: BaseCredentialService;
  readonly credentialExchangers: CredentialExchangerRegistry;
  readonly modelRegistry?: ModelRegistry;
  readonly pluginManager: PluginManager;
  readonly contextCacheConfig?: ContextCacheConfig;
  readonly contentsCache: ContentsCache;
  readonly budget?: Budget;
  readonly prices: PriceTable;
  readonly resumability?: ResumabilityConfig;
}

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
      prices: runner.prices,
      budget: resolveBudget(runner.budget, init.runConfig.budget),
      now: init.now,
    }),
  });
}
