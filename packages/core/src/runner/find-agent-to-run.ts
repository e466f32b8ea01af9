import type { BaseAgent } from "../agents/base-agent.js";
import { getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";
import { isTransferableAcrossAgentTree } from "../flows/transfer.js";
import type { Session } from "../sessions/session.js";
import { sessionEvents } from "../sessions/session-events.js";

/**
 * Which agent answers the new message (ADK's `_find_agent_to_run`):
 * 1. when the latest event is a function response, the agent that made the matching call;
 * 2. else the author of the latest agent event, if it is an LLM agent whose whole ancestry
 *    allows transfer to parent (the conversation was transferred to it earlier);
 * 3. else the root agent.
 */
export function findAgentToRun(session: Session, rootAgent: BaseAgent): BaseAgent {
  const events = sessionEvents(session);
  const caller = findMatchingFunctionCall(events);
  if (caller) {
    const agent = rootAgent.findAgent(caller.author);
    if (agent) return agent;
  }
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.author === "user") continue;
    if (event.author === rootAgent.name) return rootAgent;
    const agent = rootAgent.findSubAgent(event.author);
    if (!agent) continue; // an agent no longer in the tree
    if (isTransferableAcrossAgentTree(agent)) return agent;
  }
  return rootAgent;
}

/** The event holding the call that the session's latest event (a function response) answers. */
export function findMatchingFunctionCall(events: readonly Event[]): Event | undefined {
  const last = events[events.length - 1];
  if (!last) return undefined;
  const responses = getFunctionResponses(last);
  // Most runs follow a model's answer or a user message: no response, nothing to match.
  if (responses.length === 0) return undefined;
  const ids = new Set<string>();
  for (const r of responses) if (r.id) ids.add(r.id);
  if (ids.size === 0) return undefined;
  for (let i = events.length - 2; i >= 0; i--) {
    const event = events[i]!;
    if (getFunctionCalls(event).some((c) => c.id !== undefined && ids.has(c.id))) return event;
  }
  return undefined;
}
