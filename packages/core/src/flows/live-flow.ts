import type { InvocationContext } from "../agents/invocation-context.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { Event } from "../events/event.js";

/** Placeholder until the live (BIDI) flow lands; owned by the Runner engineer. */
// eslint-disable-next-line require-yield
export async function* runLiveFlow(_ctx: InvocationContext, agent: LlmAgent): AsyncGenerator<Event, void, void> {
  throw new ConfigurationError(`Agent "${agent.name}": live not supported yet.`);
}
