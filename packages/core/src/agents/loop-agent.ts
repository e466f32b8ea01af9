import { ConfigurationError } from "../errors/agentkit-error.js";
import { agentShape } from "../workflow/agent-shapes.js";
import { Workflow } from "../workflow/workflow.js";
import type { BaseAgentOptions } from "./base-agent.js";

export interface LoopAgentOptions extends BaseAgentOptions {
  /** Rounds over the sub-agents before stopping; unlimited when omitted (stop with escalate). */
  maxIterations?: number;
}

/**
 * Runs its sub-agents in order, round after round, until `maxIterations` rounds ran, an event
 * carries `actions.escalate` (e.g. from `exitLoopTool`; the escalating sub-agent finishes its
 * turn first), or the invocation ended. A workflow whose chain of sub-agents leads back to its
 * first, the loop edge bounded by `maxIterations`.
 */
export class LoopAgent extends Workflow {
  readonly maxIterations?: number;

  constructor(options: LoopAgentOptions) {
    const max = options?.maxIterations;
    if (max !== undefined && (!Number.isInteger(max) || max < 1)) {
      throw new ConfigurationError(
        `LoopAgent "${options.name}": maxIterations must be a positive integer (or omitted for no limit).`,
      );
    }
    super(options, agentShape(options?.name, options?.subAgents, "loop", max));
    this.maxIterations = max;
  }
}
