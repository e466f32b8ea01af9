import { agentShape } from "../workflow/agent-shapes.js";
import { Workflow } from "../workflow/workflow.js";
import type { BaseAgentOptions } from "./base-agent.js";

export type SequentialAgentOptions = BaseAgentOptions;

/**
 * Runs its sub-agents one after another, in order, in the same branch; stops once the invocation
 * ended. A workflow whose graph is the chain of its sub-agents. Live runs take each sub-agent's
 * live run in turn (the next starts when the previous one's connection closed).
 */
export class SequentialAgent extends Workflow {
  constructor(options: SequentialAgentOptions) {
    super(options, agentShape(options?.name, options?.subAgents, "sequential"));
  }
}
