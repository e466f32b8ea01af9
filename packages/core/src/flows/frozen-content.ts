import type { Content, Part } from "../content/content.js";
import type { Event } from "../events/event.js";

/** The events' contents as frozen snapshots (events without content give none). */
export function frozenContentsOf(events: Event[]): Content[] {
  const out: Content[] = [];
  for (const event of events) if (event.content) out.push(frozenContent(event.content));
  return out;
}

/**
 * A request's view of a history content: the content, its parts array, its parts and their
 * call/response/blob members frozen, so a request can share it with later requests and a
 * callback or adapter cannot edit the stored event through it (an in-place edit throws).
 * Argument values are shared with the event, not copied (stored events are snapshots, frozen
 * by the in-memory store). A content already frozen that way (from the in-memory store) is
 * shared as it is: no copy at all.
 */
function frozenContent(content: Content): Content {
  if (Object.isFrozen(content) && Object.isFrozen(content.parts ?? FROZEN_EMPTY)) {
    if ((content.parts ?? []).every(isFrozenPart)) return content;
  }
  const copy: Content = { ...content };
  if (content.parts) {
    copy.parts = content.parts.map((part) => {
      const p: Part = { ...part };
      if (part.functionCall) p.functionCall = Object.freeze({ ...part.functionCall });
      if (part.functionResponse) p.functionResponse = Object.freeze({ ...part.functionResponse });
      if (part.inlineData) p.inlineData = Object.freeze({ ...part.inlineData });
      if (part.fileData) p.fileData = Object.freeze({ ...part.fileData });
      return Object.freeze(p);
    });
    Object.freeze(copy.parts);
  }
  return Object.freeze(copy);
}

const FROZEN_EMPTY: readonly Part[] = Object.freeze([]);

function isFrozenPart(part: Part): boolean {
  return (
    Object.isFrozen(part) &&
    (!part.functionCall || Object.isFrozen(part.functionCall)) &&
    (!part.functionResponse || Object.isFrozen(part.functionResponse)) &&
    (!part.inlineData || Object.isFrozen(part.inlineData)) &&
    (!part.fileData || Object.isFrozen(part.fileData))
  );
}
