import type { Part } from "../content/content.js";
import { createEvent, getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";
import { UNANSWERED_CALL_RESPONSE } from "../flows/answer-dangling-calls.js";
import { suspendedCallOf } from "../flows/suspended-call-record.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";
import type { AbortWatch } from "./run-helpers.js";
import { sessionEvents } from "../sessions/session-events.js";

/** Marks the events `closeInterruptedCalls` writes. */
export const INTERRUPTED_CALLS_ERROR_CODE = "TOOL_CALLS_INTERRUPTED";

/**
 * A run that stops between a model's function call and its response (process killed, run
 * aborted, shutdown) leaves the call unanswered in the history, and providers such as OpenAI and
 * Anthropic refuse every later request that carries it. Before the next run, the runner records
 * an error response for each such call of the latest agent invocation, one event per agent and
 * branch that made them, so the stored history is well-formed again and the model (and the
 * client) can tell the call did not complete. Calls the flow is waiting on
 * (`longRunningToolIds`) are not interrupted: the client may still answer them.
 *
 * Only the latest invocation is read (a few events, not the whole history): every earlier one was
 * closed by the run that followed it. Histories from before this rule, or gaps left otherwise,
 * are still made well-formed in each model request (`getContents`).
 */
export function closeInterruptedCalls(events: readonly Event[]): Event[] {
  let invocationId: string | undefined;
  // Made on first use: most runs find the latest invocation complete and need neither.
  let answered: Set<string> | undefined;
  // Calls a tool suspended wait for the client like long-running ones.
  let suspended: Set<string> | undefined;
  const dangling: { event: Event; parts: Part[] }[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (invocationId === undefined) {
      if (event.author === "user") continue; // a later client message (or an orphan of a refused run)
      invocationId = event.invocationId;
    } else if (event.invocationId !== invocationId) {
      break;
    }
    for (const r of getFunctionResponses(event)) if (r.id) (answered ??= new Set()).add(r.id);
    const record = suspendedCallOf(event);
    if (record) (suspended ??= new Set()).add(record.id);
    if (event.author === "user") continue;
    const parts: Part[] = [];
    for (const call of getFunctionCalls(event)) {
      if (!call.id || answered?.has(call.id) || suspended?.has(call.id) || event.longRunningToolIds?.includes(call.id))
        continue;
      parts.push({
        functionResponse: { id: call.id, name: call.name ?? "", response: { ...UNANSWERED_CALL_RESPONSE } },
      });
    }
    if (parts.length > 0) dangling.push({ event, parts });
  }
  if (dangling.length === 0) return [];
  // One event per agent and branch, oldest calls first.
  const groups = new Map<string, { event: Event; parts: Part[] }>();
  for (const { event, parts } of dangling.reverse()) {
    const key = JSON.stringify([event.author, event.branch ?? null]);
    const group = groups.get(key);
    if (group) group.parts.push(...parts);
    else groups.set(key, { event, parts: [...parts] });
  }
  return [...groups.values()].map(({ event, parts }) =>
    createEvent({
      invocationId: event.invocationId,
      author: event.author,
      branch: event.branch,
      content: { role: "user", parts },
      errorCode: INTERRUPTED_CALLS_ERROR_CODE,
      errorMessage: `The run stopped before ${parts.length === 1 ? "this tool call" : "these tool calls"} returned.`,
    }),
  );
}

/**
 * Stores the responses of `closeInterruptedCalls` before a run starts (aborting stops between
 * them). Undefined when there is nothing to store, as in most runs: the caller then awaits
 * nothing (no promise made, no turn of the microtask queue).
 */
export function storeInterruptedCallResponses(
  sessionService: BaseSessionService,
  session: Session,
  watch: AbortWatch,
): Promise<void> | undefined {
  const responses = closeInterruptedCalls(sessionEvents(session));
  if (responses.length === 0) return undefined;
  return (async () => {
    for (const event of responses) {
      watch.throwIfAborted();
      await sessionService.appendEvent({ session, event });
    }
  })();
}
