import type { Event } from "../events/event.js";

/** Live transcriptions become text contents (consecutive chunks joined). */
export function mergeTranscriptions(events: Event[]): Event[] {
  // Every event has content (any history outside live runs): nothing to merge or drop, no copy.
  let first = 0;
  while (first < events.length && events[first]!.content) first++;
  if (first === events.length) return events;
  const out: Event[] = events.slice(0, first);
  let input = "";
  let output = "";
  for (let i = first; i < events.length; i++) {
    const event = events[i]!;
    if (event.content) {
      out.push(event);
      continue;
    }
    const next = events[i + 1];
    if (event.inputTranscription?.text) {
      input += event.inputTranscription.text;
      if (next && !next.content && next.inputTranscription?.text) continue;
      out.push({ ...event, inputTranscription: undefined, content: { role: "user", parts: [{ text: input }] } });
      input = "";
    } else if (event.outputTranscription?.text) {
      output += event.outputTranscription.text;
      if (next && !next.content && next.outputTranscription?.text) continue;
      out.push({ ...event, outputTranscription: undefined, content: { role: "model", parts: [{ text: output }] } });
      output = "";
    }
  }
  return out;
}
