import type { Event } from "../events/event.js";
import { RESERVED_FUNCTION_CALL_NAMES } from "./confirmation-names.js";
import { suspendedCallOf } from "./suspended-call-record.js";

/** True when an event of `eventBranch` is visible from `branch` (same branch or an ancestor). */
export function isEventInBranch(branch: string | undefined, event: Pick<Event, "branch">): boolean {
  if (!branch || !event.branch) return true;
  return branch === event.branch || branch.startsWith(`${event.branch}.`);
}

function isEmptyContent(event: Event): boolean {
  if (event.actions.compaction) return false;
  const c = event.content;
  const empty = !c?.role || !c.parts || c.parts.length === 0 || c.parts[0]!.text === "";
  return empty && !event.inputTranscription?.text && !event.outputTranscription?.text;
}

const INTERNAL_FUNCTION_NAMES = RESERVED_FUNCTION_CALL_NAMES;

/** Auth and confirmation round-trip events are for the client, never for the model. */
export function isInternalRequestEvent(event: Event): boolean {
  const parts = event.content?.parts;
  if (!parts) return false;
  // Indexed: stored parts arrays are frozen, and iterating a frozen array is V8's slow path.
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const name = p.functionCall?.name ?? p.functionResponse?.name;
    if (name !== undefined && INTERNAL_FUNCTION_NAMES.has(name)) return true;
  }
  return false;
}

/**
 * Whether a model request of `branch` sees the event: complete, with content, in the branch or
 * an ancestor, no auth/confirmation round trip and no suspended tool call's display.
 */
export function shouldIncludeEvent(branch: string | undefined, event: Event): boolean {
  return (
    !event.partial &&
    !isEmptyContent(event) &&
    isEventInBranch(branch, event) &&
    !isInternalRequestEvent(event) &&
    // What a suspended tool call shows the client is its tool's business, not the model's.
    !suspendedCallOf(event)
  );
}
