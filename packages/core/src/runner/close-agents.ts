import { BaseAgent } from "../agents/base-agent.js";
import { settleAll } from "../concurrency/settle-all.js";

/**
 * Closes an agent tree: the root (whose `close()` closes its sub-agents and each agent its
 * toolsets) and every agent wrapped in an `AgentTool` anywhere in the tree, each once.
 * Failures are collected and thrown together after every close ran.
 */
export async function closeAgentTree(root: BaseAgent): Promise<void> {
  const { roots } = walkAgentTree(root);
  await settleAll(
    [...roots].map((a) => a.close()),
    (n) => `${n} agents failed to close`,
  );
}

/**
 * Every agent of a tree, each once: sub-agents and agents wrapped in `AgentTool`s anywhere in
 * it; `roots` are the tree's root and the roots of the wrapped agents' own trees.
 */
export function walkAgentTree(root: BaseAgent): { agents: Set<BaseAgent>; roots: Set<BaseAgent> } {
  const roots = new Set<BaseAgent>([root]);
  const agents = new Set<BaseAgent>();
  const visit = (agent: BaseAgent): void => {
    if (agents.has(agent)) return;
    agents.add(agent);
    for (const sub of agent.subAgents) visit(sub);
    for (const wrapped of agentsOfTools(agent)) {
      if (!agents.has(wrapped)) roots.add(wrapped.rootAgent);
      visit(wrapped);
    }
  };
  visit(root);
  return { agents, roots };
}

/** Agents wrapped by tools (`AgentTool`) of an agent that has a `tools` list. */
function agentsOfTools(agent: BaseAgent): BaseAgent[] {
  const tools = (agent as unknown as { tools?: unknown }).tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t: unknown) => {
    const wrapped = (t as { agent?: unknown } | null)?.agent;
    return wrapped instanceof BaseAgent ? [wrapped] : [];
  });
}
