import type { AgentEvent } from "./types.js";

/**
 * The history as the agent now sees it: a rewind event (`actions.rewindBeforeInvocationId`)
 * hides the invocation it names and everything after it, up to the rewind itself, which is not
 * shown either (docs/sessions.md "Rewind": the events stay in the session).
 */
export function withoutRewound(events: readonly AgentEvent[]): AgentEvent[] {
  const out: AgentEvent[] = [];
  for (const event of events) {
    const target = event.actions?.rewindBeforeInvocationId;
    if (typeof target === "string" && target) {
      const start = out.findIndex((e) => e.invocationId === target);
      if (start >= 0) out.length = start;
      continue;
    }
    out.push(event);
  }
  return out;
}

/** A user's own message (not an answer to a call) that a rewind can undo: it has a stored invocation. */
export function isRewindable(event: AgentEvent): boolean {
  if (event.author !== "user" || !event.invocationId || event.id.startsWith("local-")) return false;
  // a workflow node's input shown to its agent as a user turn is not the user's message
  if (event.nodeInfo !== undefined || event.branch) return false;
  const parts = event.content?.parts ?? [];
  return parts.length > 0 && !parts.some((p) => p.functionResponse || p.functionCall);
}
