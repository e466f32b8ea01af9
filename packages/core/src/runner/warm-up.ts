import type { BaseAgent } from "../agents/base-agent.js";
import { isLlmAgent } from "../flows/llm-agent-kind.js";
import type { BaseLlm } from "../models/base-llm.js";
import type { ModelRegistry } from "../models/model-registry.js";
import { walkAgentTree } from "./close-agents.js";

/** What warming an agent tree did: the models made ready, and those that could not be. */
export interface WarmUpReport {
  /** Model names (or `model` of instances) whose adapters are loaded. */
  readonly models: string[];
  /** Agents whose model could not be resolved or loaded, with the error (runs will report it too). */
  readonly failures: { agent: string; model?: string; error: unknown }[];
}

/**
 * Resolves the model of every LLM agent of the tree (sub-agents and agents behind `AgentTool`s)
 * and warms each instance once: its adapter and SDK load now instead of on the first request.
 * Never calls a provider and never throws: a failure is reported and left for the run to raise.
 */
export async function warmUpAgentTree(
  root: BaseAgent,
  modelRegistry: ModelRegistry | undefined,
): Promise<WarmUpReport> {
  const models = new Map<BaseLlm, string>();
  const failures: WarmUpReport["failures"] = [];
  for (const agent of walkAgentTree(root).agents) {
    if (!isLlmAgent(agent)) continue;
    try {
      const model = agent.resolveModel({ modelRegistry });
      if (!models.has(model)) models.set(model, agent.name);
    } catch (error) {
      failures.push({ agent: agent.name, error });
    }
  }
  const ready: string[] = [];
  await Promise.all(
    [...models].map(async ([model, agent]) => {
      try {
        await model.warmUp();
        ready.push(model.model);
      } catch (error) {
        failures.push({ agent, model: model.model, error });
      }
    }),
  );
  return { models: ready.sort(), failures };
}
