import { copyWithRoom } from "../content/copy-with-room.js";
import type { Content } from "../content/content.js";
import type { LlmRequest } from "../models/llm-request.js";

/**
 * History arrays `getContents` lends to a request without copying them: the memo's own array,
 * which the next request of the same session appends to in place. Only the flow and models that
 * declare `readsContentsOnly` may see such an array; anyone else gets the request after
 * `ownContents` (a WeakSet so a memo dropped by the cache is not kept alive here).
 */
const lent = new WeakSet<Content[]>();

/** Marks `contents` as lent: whoever may edit or keep it must call `ownContents` first. */
export function lendContents(contents: Content[]): Content[] {
  lent.add(contents);
  return contents;
}

/**
 * Gives the request a copy of its contents when they are lent, so a callback, tool, plugin or
 * model that edits or keeps `request.contents` changes its own array, never the memo's. Cheap
 * when the request already owns them (a Set lookup).
 */
export function ownContents(request: LlmRequest): void {
  if (lent.has(request.contents)) request.contents = copyWithRoom(request.contents);
}
