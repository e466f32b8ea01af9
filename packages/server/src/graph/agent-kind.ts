import { LoopAgent, ParallelAgent, SequentialAgent, isLlmAgent, type BaseAgent, type BaseTool } from "@agentkit/core";

/** How a workflow agent runs its sub-agents. */
export type WorkflowKind = "sequential" | "parallel" | "loop";

/** The workflow kind of an agent, or `undefined` for agents that are not workflows. */
export function workflowKindOf(agent: BaseAgent): WorkflowKind | undefined {
  if (agent instanceof SequentialAgent) return "sequential";
  if (agent instanceof ParallelAgent) return "parallel";
  if (agent instanceof LoopAgent) return "loop";
  return undefined;
}

/** The agent's tools, toolsets expanded; a toolset that cannot list its tools is shown by class name. */
export async function toolsOf(agent: BaseAgent): Promise<{ name: string; tool?: BaseTool }[]> {
  if (!isLlmAgent(agent)) return [];
  const out: { name: string; tool?: BaseTool }[] = [];
  for (const union of agent.tools) {
    if ("getTools" in union && typeof union.getTools === "function") {
      try {
        for (const tool of await union.getTools()) out.push({ name: tool.name, tool });
      } catch {
        out.push({ name: union.constructor.name });
      }
    } else {
      const tool = union as BaseTool;
      out.push({ name: tool.name, tool });
    }
  }
  return out;
}

/** The model's name of an LLM agent (a string model, or a model instance's `model`). */
export function modelNameOf(agent: BaseAgent): string | undefined {
  if (!isLlmAgent(agent)) return undefined;
  const model = agent.model;
  if (typeof model === "string") return model;
  return model?.model;
}
