import { agentShape } from "../workflow/agent-shapes.js";
import { Workflow } from "../workflow/workflow.js";
import type { BaseAgentOptions } from "./base-agent.js";

export type ParallelAgentOptions = BaseAgentOptions;

/**
 * Runs its sub-agents concurrently, each in its own branch (`<branch>.<name>.<subName>`) so
 * none sees the others' events. Events are yielded in the order they are produced; a
 * sub-agent resumes only after the consumer took its previous event (so the runner has
 * persisted it). A failure in one stops the others and propagates. A workflow whose START fans
 * out to every sub-agent.
 */
export class ParallelAgent extends Workflow {
  constructor(options: ParallelAgentOptions) {
    super(options, agentShape(options?.name, options?.subAgents, "parallel"));
  }
}
