import type { Event } from "../events/event.js";
import { BaseAgent, type BaseAgentOptions } from "./base-agent.js";
import type { InvocationContext } from "../context/invocation-context.js";

export type SequentialAgentOptions = BaseAgentOptions;

/** Runs its sub-agents one after another, in order, in the same branch; stops once the invocation ended. */
export class SequentialAgent extends BaseAgent {
  constructor(options: SequentialAgentOptions) {
    super(options);
  }

  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    for (const sub of this.subAgents) {
      if (ctx.isEnded) return;
      ctx.throwIfAborted();
      yield* sub.runAsync(ctx);
    }
  }

  /**
   * Live: each sub-agent runs live in turn on the same request queue; the next one starts
   * when the previous one's live run ends (its connection closed).
   */
  protected override async *runLiveImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    for (const sub of this.subAgents) {
      if (ctx.isEnded) return;
      ctx.throwIfAborted();
      yield* sub.runLive(ctx);
    }
  }
}
