import { deepCopy } from "../content/deep-copy.js";
import { countFunctionResponses, getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";

/** One event with the first event's parts, later responses replacing same-id ones. */
function mergeFunctionResponseEvents(events: Event[]): Event {
  const base = deepCopy(events[0]!);
  const parts = base.content?.parts ?? [];
  const index = new Map<string | undefined, number>();
  parts.forEach((p, i) => {
    if (p.functionResponse) index.set(p.functionResponse.id, i);
  });
  for (const event of events.slice(1)) {
    for (const part of event.content?.parts ?? []) {
      const id = part.functionResponse?.id;
      if (part.functionResponse && index.has(id)) parts[index.get(id)!] = part;
      else {
        parts.push(part);
        if (part.functionResponse) index.set(id, parts.length - 1);
      }
    }
  }
  base.content = { role: base.content?.role ?? "user", parts };
  return base;
}

/**
 * When the newest event answers an older call (a long-running tool answered later, or a tool
 * re-run after confirmation), drop what came between and put the merged answer right after
 * its call.
 */
export function rearrangeLatestFunctionResponse(events: Event[], allEvents: readonly Event[]): Event[] {
  if (events.length < 2 || countFunctionResponses(events[events.length - 1]!) === 0) return events;
  const responses = getFunctionResponses(events[events.length - 1]!);
  // The usual case, an answer right after its call, is found without a set of ids.
  if (getFunctionCalls(events[events.length - 2]!).some((c) => responses.some((r) => r.id === c.id))) return events;
  let ids = new Set(responses.map((r) => r.id));

  const search = allEvents.length > 0 ? allEvents : events;
  let callEvent: Event | undefined;
  for (let i = search.length - 2; i >= 0 && !callEvent; i--) {
    const calls = getFunctionCalls(search[i]!);
    if (calls.some((c) => ids.has(c.id))) {
      callEvent = search[i];
      ids = new Set(calls.map((c) => c.id));
    }
  }
  const callIndex = callEvent ? events.findIndex((e) => e.id === callEvent!.id) : -1;
  // ADK raises here; an unmatched answer is sent as is instead (the model can still read it).
  if (callIndex < 0) return events;
  const responseEvents = events
    .slice(callIndex + 1, -1)
    .filter((e) => getFunctionResponses(e).some((r) => ids.has(r.id)));
  responseEvents.push(events[events.length - 1]!);
  return [...events.slice(0, callIndex + 1), mergeFunctionResponseEvents(responseEvents)];
}

/** Moves every function response of history right after its call, merging responses of one call event. */
export function rearrangeAsyncFunctionResponsesInHistory(events: Event[]): Event[] {
  let found: Map<string | undefined, number> | undefined;
  for (let i = 0; i < events.length; i++) {
    const parts = events[i]!.content?.parts;
    // Indexed: stored parts arrays are frozen, and iterating a frozen array is V8's slow path.
    if (parts)
      for (let j = 0; j < parts.length; j++) {
        const response = parts[j]!.functionResponse;
        if (response) (found ??= new Map()).set(response.id, i);
      }
  }
  // No response to move (a model call's first request of a run, most often): the history as it is.
  if (!found) return events;
  const responseIndex = found;
  const out: Event[] = [];
  for (const event of events) {
    if (countFunctionResponses(event) > 0) continue;
    out.push(event);
    const calls = getFunctionCalls(event);
    if (calls.length === 0) continue;
    if (calls.length === 1) {
      // One call (the usual step): its response event, if any, without a set of indices.
      const index = responseIndex.get(calls[0]!.id);
      if (index !== undefined) out.push(events[index]!);
      continue;
    }
    const indices = [
      ...new Set(calls.flatMap((c) => (responseIndex.has(c.id) ? [responseIndex.get(c.id)!] : []))),
    ].sort((a, b) => a - b);
    if (indices.length === 1) out.push(events[indices[0]!]!);
    else if (indices.length > 1) out.push(mergeFunctionResponseEvents(indices.map((i) => events[i]!)));
  }
  return out;
}
