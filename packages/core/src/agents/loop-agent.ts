import { ConfigurationError } from "../errors/agentkit-error.js";
import type { Event } from "../events/event.js";
import { BaseAgent, type BaseAgentOptions } from "./base-agent.js";
import type { InvocationContext } from "../context/invocation-context.js";

export interface LoopAgentOptions extends BaseAgentOptions {
  /** Rounds over the sub-agents before stopping; unlimited when omitted (stop with escalate). */
  maxIterations?: number;
}

/**
 * Runs its sub-agents in order, round after round, until `maxIterations` rounds ran, an event
 * carries `actions.escalate` (e.g. from `exitLoopTool`; the escalating sub-agent finishes its
 * turn first), or the invocation ended.
 */
export class LoopAgent extends BaseAgent {
  readonly maxIterations?: number;

  constructor(options: LoopAgentOptions) {
    super(options);
    const max = options.maxIterations;
    if (max !== undefined && (!Number.isInteger(max) || max < 1)) {
      throw new ConfigurationError(
        `LoopAgent "${options.name}": maxIterations must be a positive integer (or omitted for no limit).`,
      );
    }
    this.maxIterations = max;
  }

  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    if (this.subAgents.length === 0) return;
    for (let round = 0; this.maxIterations === undefined || round < this.maxIterations; round++) {
      for (const sub of this.subAgents) {
        if (ctx.isEnded) return;
        ctx.throwIfAborted();
        let escalated = false;
        for await (const event of sub.runAsync(ctx)) {
          if (event.actions.escalate) escalated = true;
          yield event;
        }
        if (escalated) return;
      }
      // Give timers and abort listeners a turn even when sub-agents never wait.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}
