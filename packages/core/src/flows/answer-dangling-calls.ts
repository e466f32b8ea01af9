import type { FunctionCall, Part } from "../content/content.js";
import { createEvent, getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";

/** What the model reads for a call the client has not answered yet (a paused long-running call). */
export const PENDING_CALL_RESPONSE = {
  status: "pending",
  message: "This long-running call has not returned yet; its result will arrive in a later message.",
} as const;

/** What the model reads for a call that never got a response (its run stopped). */
export const UNANSWERED_CALL_RESPONSE = {
  error: "This tool call was interrupted before it returned (the run stopped); its outcome is unknown.",
} as const;

/**
 * Every provider except Gemini refuses a request whose function call is not followed by its
 * response (and Gemini refuses unequal counts), so a request must never carry one: a call left
 * without a response (a paused long-running call, or a call whose run was killed before the
 * runner could record the interruption) gets a stand-in response right after it, the same on
 * every adapter. Calls without an id (providers that do not use them) are left as they are.
 */
export function answerDanglingCalls(events: Event[]): Event[] {
  // One pass over the parts first: most histories have no dangling call and need nothing more.
  // The set and the list are made at the first response or call: a history of text needs neither.
  let answered: Set<string> | undefined;
  let ids: string[] | undefined;
  for (const event of events) {
    const parts = event.content?.parts;
    if (!parts) continue;
    // Indexed: stored parts arrays are frozen, and iterating a frozen array is V8's slow path.
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part.functionResponse?.id) (answered ??= new Set()).add(part.functionResponse.id);
      if (part.functionCall?.id) (ids ??= []).push(part.functionCall.id);
    }
  }
  if (!ids) return events;
  const responded = answered ?? new Set<string>();
  if (!ids.some((id) => !responded.has(id))) return events;
  const isDangling = (c: FunctionCall) => c.id !== undefined && c.id !== "" && !responded.has(c.id);
  const out: Event[] = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    out.push(event);
    const missing = getFunctionCalls(event).filter(isDangling);
    if (missing.length === 0) continue;
    const parts: Part[] = missing.map((c) => ({
      functionResponse: {
        id: c.id!,
        name: c.name ?? "",
        response: { ...(event.longRunningToolIds?.includes(c.id!) ? PENDING_CALL_RESPONSE : UNANSWERED_CALL_RESPONSE) },
      },
    }));
    const next = events[i + 1];
    if (next && getFunctionResponses(next).length > 0) {
      out.push({
        ...next,
        content: { role: next.content?.role ?? "user", parts: [...(next.content?.parts ?? []), ...parts] },
      });
      i += 1;
    } else {
      const { invocationId, author, branch, timestamp } = event;
      out.push(
        createEvent({
          id: `${event.id}-answers`,
          invocationId,
          author,
          branch,
          timestamp,
          content: { role: "user", parts },
        }),
      );
    }
  }
  return out;
}
