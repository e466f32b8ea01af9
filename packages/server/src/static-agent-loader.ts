import { App, BaseAgent, ConfigurationError } from "@agentkit/core";
import type { AgentLoader, LoadedApp } from "./agent-loader.js";
import { AppNotFoundError } from "./errors/server-errors.js";

export interface StaticAgentLoaderOptions {
  /** App name → its root agent or App. The names are the URL's `{app}` segment. */
  apps: Record<string, BaseAgent | App>;
}

/**
 * An AgentLoader over a fixed set of agents, for tests and for embedding the server in a
 * program that builds its agents in code. Each app is loaded once; `loadApp` always returns
 * the same object, so its runner is built once.
 */
export function createStaticAgentLoader(options: StaticAgentLoaderOptions): AgentLoader {
  const apps = new Map<string, LoadedApp>();
  for (const [name, value] of Object.entries(options.apps ?? {})) {
    if (value instanceof App) apps.set(name, Object.freeze({ name, rootAgent: value.rootAgent, app: value }));
    else if (value instanceof BaseAgent) apps.set(name, Object.freeze({ name, rootAgent: value }));
    else throw new ConfigurationError(`createStaticAgentLoader: app "${name}" must be a BaseAgent or an App.`);
  }
  const names = [...apps.keys()].sort();
  return {
    async listApps() {
      return [...names];
    },
    async loadApp(appName) {
      const loaded = apps.get(appName);
      if (!loaded) throw new AppNotFoundError(appName);
      return loaded;
    },
    async close() {},
  };
}
