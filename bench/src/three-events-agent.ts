import { BaseAgent, createEvent, type Event, type InvocationContext } from "@agentkit/core";

/**
 * The runner's own floor: an agent that yields three text events and calls no model and no
 * tool, so an invocation is what every agent pays (the user turn, four appends with their frozen
 * copies, the per-session queue, the run loop) and nothing of the LLM flow.
 */
class ThreeEventsAgent extends BaseAgent {
  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    for (let i = 0; i < 3; i++) {
      yield createEvent({
        invocationId: ctx.invocationId,
        author: this.name,
        branch: ctx.branch,
        content: { role: "model", parts: [{ text: `part ${i}` }] },
      });
    }
  }
}

export function makeThreeEventsAgent(): BaseAgent {
  return new ThreeEventsAgent({ name: "three_events" });
}
