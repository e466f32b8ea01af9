import { isLlmAgent, type BaseAgent, type BaseLlm, type LlmAgent, type ModelRegistry } from "@agentkit/core";
import type { AgentLoader } from "@agentkit/server";
import type { UserSimulatorResolver } from "@agentkit/server/devtools";
import { CliUsageError } from "./cli-usage-error.js";

export interface UserSimulatorResolverOptions {
  /** `--user-simulator-model`: one model for every app. */
  model?: string;
  modelRegistry: ModelRegistry;
  loader: AgentLoader;
}

/**
 * The model that plays the user of the dev UI's scenario cases: `--user-simulator-model` (checked
 * now, so a wrong name stops the server before it listens), else the app's own agent model, the
 * model its developer already configured (the examples' offline demo model with no API key).
 */
export function createUserSimulatorResolver(options: UserSimulatorResolverOptions): UserSimulatorResolver {
  if (options.model !== undefined) {
    let model: BaseLlm;
    try {
      model = options.modelRegistry.resolve(options.model);
    } catch (error) {
      throw new CliUsageError(`--user-simulator-model: ${error instanceof Error ? error.message : String(error)}`);
    }
    return async () => ({ model });
  }
  return async (appName) => {
    const loaded = await options.loader.loadApp(appName);
    const agent = firstLlmAgent(loaded.rootAgent);
    if (!agent) return undefined;
    try {
      return { model: agent.resolveModel({ modelRegistry: loaded.app?.modelRegistry ?? options.modelRegistry }) };
    } catch {
      // A model the app cannot resolve leaves its scenario cases NOT_EVALUATED, saying a simulator is needed.
      return undefined;
    }
  };
}

/** The root agent when it is an LlmAgent, else the first one below it (depth first). */
function firstLlmAgent(agent: BaseAgent): LlmAgent | undefined {
  if (isLlmAgent(agent)) return agent;
  for (const sub of agent.subAgents) {
    const found = firstLlmAgent(sub);
    if (found) return found;
  }
  return undefined;
}
