import type { Event } from "../events/event.js";
import { isEventInBranch } from "./should-include-event.js";

/**
 * True when the newest user event of the branch carries a function response with an id: the
 * only case in which a step may resume confirmed, authorized or suspended tool calls (each of
 * those steps looks at that event first and does nothing otherwise). Lets a plain user message
 * skip the three resume steps in O(1).
 */
export function newestUserEventAnswersCalls(events: readonly Event[], branch: string | undefined): boolean {
  for (let k = events.length - 1; k >= 0; k--) {
    const event = events[k]!;
    if (event.author !== "user" || !isEventInBranch(branch, event)) continue;
    const parts = event.content?.parts;
    if (!parts) return false;
    // Indexed: stored parts arrays are frozen, and iterating a frozen array is V8's slow path.
    for (let i = 0; i < parts.length; i++) if (parts[i]!.functionResponse?.id) return true;
    return false;
  }
  return false;
}
