import type { Event } from "../events/event.js";

/** Drops events annulled by a rewind (`actions.rewindBeforeInvocationId`). */
export function applyRewinds(events: readonly Event[]): Event[] {
  const kept: Event[] = [];
  let i = events.length - 1;
  while (i >= 0) {
    const event = events[i]!;
    const target = event.actions.rewindBeforeInvocationId;
    if (target) {
      const j = events.findIndex((e, idx) => idx < i && e.invocationId === target);
      if (j >= 0) i = j;
    } else {
      kept.push(event);
    }
    i -= 1;
  }
  return kept.reverse();
}
