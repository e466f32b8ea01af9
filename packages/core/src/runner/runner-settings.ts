import type { BaseAgent } from "../agents/base-agent.js";
import type { ResumabilityConfig } from "../context/invocation-context.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { ContextCacheConfig } from "../models/llm-request.js";
import { PluginManager } from "../plugins/plugin-manager.js";
import { resolveBudget, type Budget } from "../usage/budget.js";
import { PriceTable } from "../usage/price-table.js";
import { validateAppName, type App, type EventsCompactionConfig } from "./app.js";
import type { RunnerOptions } from "./runner-options.js";

/** What a runner runs and with which settings: from its App, or from its own options. */
export interface RunnerSettings {
  app?: App;
  agent: BaseAgent;
  appName: string;
  pluginManager: PluginManager;
  eventsCompactionConfig?: EventsCompactionConfig;
  contextCacheConfig?: ContextCacheConfig;
  budget?: Budget;
  prices: PriceTable;
  resumability?: ResumabilityConfig;
}

/**
 * Checks a runner's options and picks its settings. With an app everything but the services
 * comes from the app (plugins, budget, prices or resumability next to it are refused, so no
 * setting is silently ignored); with an agent, `appName` is required.
 */
export function resolveRunnerSettings(options: RunnerOptions): RunnerSettings {
  if (!options.sessionService)
    throw new ConfigurationError("Runner needs a sessionService (e.g. new InMemorySessionService()).");
  if (options.app) {
    if (options.agent)
      throw new ConfigurationError("Pass either app or agent to the Runner, not both: the app's rootAgent is run.");
    if (options.plugins)
      throw new ConfigurationError("When the Runner gets an app, give the plugins to the App instead.");
    if (options.budget || options.prices || options.resumability)
      throw new ConfigurationError(
        "When the Runner gets an app, give the budget, prices and resumability to the App instead.",
      );
    const { app } = options;
    const appName = options.appName ?? app.name;
    validateAppName(appName);
    return {
      app,
      agent: app.rootAgent,
      appName,
      pluginManager: new PluginManager(app.plugins),
      eventsCompactionConfig: app.eventsCompactionConfig,
      contextCacheConfig: app.contextCacheConfig,
      budget: app.budget,
      prices: app.prices,
      resumability: app.resumability,
    };
  }
  if (!options.agent) throw new ConfigurationError("Runner needs an agent (with appName) or an app.");
  if (typeof options.appName !== "string" || options.appName === "") {
    throw new ConfigurationError("Runner needs an appName when given an agent (or pass an App).");
  }
  return {
    agent: options.agent,
    appName: options.appName,
    pluginManager: new PluginManager(options.plugins ?? []),
    budget: resolveBudget(options.budget),
    prices: PriceTable.from(options.prices),
    ...(options.resumability ? { resumability: { isResumable: options.resumability.isResumable === true } } : {}),
  };
}
