import type { BaseAgent } from "../agents/base-agent.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { AgentNode } from "./agent-node.js";
import { Edge, START, WorkflowGraph, type EdgeItem } from "./graph.js";
import type { WorkflowBehaviour } from "./workflow-run.js";
import type { WorkflowShape } from "./workflow.js";

/** How the workflow agents run their sub-agents on the workflow engine. */
export type AgentShapeKind = "sequential" | "parallel" | "loop";

/**
 * The graph and behaviour of a workflow agent: a chain of its sub-agents (sequential), START
 * fanning out to each on its own branch (parallel), or a chain whose last sub-agent leads back to
 * the first, bounded by `maxIterations` (loop, which also ends on escalation). The sub-agents run
 * as they always did: they read the conversation (no input is injected), no output events are
 * added, and a pause ends the path only in a resumable app.
 */
export function agentShape(
  name: string,
  subAgents: readonly BaseAgent[] | undefined,
  kind: AgentShapeKind,
  maxIterations?: number,
): WorkflowShape {
  const agents = [...(subAgents ?? [])];
  const seen = new Set<string>();
  for (const sub of agents) {
    if (seen.has(sub.name))
      throw new ConfigurationError(`Agent "${name}" has two sub-agents named "${sub.name}"; names must be unique.`);
    seen.add(sub.name);
  }
  const nodes = agents.map((agent) => new AgentNode(agent, { injectInput: false }));
  const edges: EdgeItem[] = [];
  if (nodes.length > 0) {
    if (kind === "parallel") edges.push([START, nodes]);
    else edges.push([START, ...nodes]);
    if (kind === "loop" && maxIterations !== 1) {
      const bound = maxIterations === undefined ? undefined : maxIterations - 1;
      edges.push(new Edge({ from: nodes.at(-1)!, to: nodes[0]!, maxTraversals: bound }));
    }
  }
  const behaviour: WorkflowBehaviour = {
    emitNodeOutputs: false,
    pauseAlways: false,
    stopOnEscalate: kind === "loop",
    alwaysBranchFanOut: kind === "parallel",
  };
  return {
    graph: WorkflowGraph.fromEdges(name, edges, { allowUnboundedCycles: kind === "loop", allowEmpty: true }),
    subAgents: agents,
    behaviour,
    supportsLive: kind === "sequential",
  };
}
