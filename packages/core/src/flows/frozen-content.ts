import type { Content, Part } from "../content/content.js";
import type { Event } from "../events/event.js";
import { assignOwn } from "../sessions/own-keys.js";
import { storedSnapshotOf } from "../sessions/stored-snapshots.js";

/**
 * The events' contents as frozen snapshots (events without content give none). An event its
 * store handed a frozen copy of (`storedSnapshotOf`) gives that copy's content, shared: what
 * was stored, whatever the caller did to its own event object since.
 */
export function frozenContentsOf(events: Event[]): Content[] {
  const out: Content[] = [];
  for (const event of events) {
    const content = (storedSnapshotOf(event) ?? event).content;
    if (content) out.push(frozenContent(content));
  }
  return out;
}

/**
 * A request's view of a history content: the content, its parts array, its parts and their
 * call/response/blob members frozen, so a request can share it with later requests and a
 * callback or adapter cannot edit the stored event through it (an in-place edit throws).
 * Argument values are shared with the event, not copied (stored events are snapshots, frozen
 * by the in-memory store). A content already frozen that way (a store's snapshot) is shared as
 * it is: no copy at all.
 */
function frozenContent(content: Content): Content {
  if (Object.isFrozen(content) && Object.isFrozen(content.parts ?? FROZEN_EMPTY) && allPartsFrozen(content.parts)) {
    return content;
  }
  const copy = ownCopy(content);
  if (content.parts) {
    copy.parts = content.parts.map((part) => {
      const p = ownCopy(part);
      if (part.functionCall) p.functionCall = Object.freeze(ownCopy(part.functionCall));
      if (part.functionResponse) p.functionResponse = Object.freeze(ownCopy(part.functionResponse));
      if (part.inlineData) p.inlineData = Object.freeze(ownCopy(part.inlineData));
      if (part.fileData) p.fileData = Object.freeze(ownCopy(part.fileData));
      return Object.freeze(p);
    });
    Object.freeze(copy.parts);
  }
  return Object.freeze(copy);
}

/**
 * A shallow copy built key by key, not by spread: V8 gives a spread copy of some sources (events
 * whose contents went through the flow) a hidden class of its own, and the memo keeps these
 * copies for the session's lifetime (a class and its descriptors cost more than the copy).
 */
function ownCopy<T extends object>(source: T): T {
  return assignOwn({}, source as Record<string, unknown>) as T;
}

const FROZEN_EMPTY: readonly Part[] = Object.freeze([]);

/** `parts.every(isFrozenPart)`, indexed: `every` over a frozen array is V8's slow path. */
function allPartsFrozen(parts: readonly Part[] | undefined): boolean {
  if (!parts) return true;
  for (let i = 0; i < parts.length; i++) if (!isFrozenPart(parts[i]!)) return false;
  return true;
}

function isFrozenPart(part: Part): boolean {
  return (
    Object.isFrozen(part) &&
    (!part.functionCall || Object.isFrozen(part.functionCall)) &&
    (!part.functionResponse || Object.isFrozen(part.functionResponse)) &&
    (!part.inlineData || Object.isFrozen(part.inlineData)) &&
    (!part.fileData || Object.isFrozen(part.fileData))
  );
}
