import { copyWithRoom } from "../content/copy-with-room.js";
import type { Content } from "../content/content.js";
import type { LlmRequest } from "../models/llm-request.js";
import { ownDeclarations } from "./shared-declarations.js";

/**
 * History arrays `getLentContents` has lent to requests without copying them (the memo's own
 * array), with how many requests hold each. Only the flow and the models and plugins that
 * declare `readsContentsOnly` may see such an array; anyone else gets the request after
 * `ownRequest`. While an array is out, the memo does not append to it (`isLentHistory`): a
 * concurrent run on the same session gets a new array instead of changing the one a model is
 * still reading. A WeakMap so a memo dropped by the cache (or a loan never returned after an
 * error) is not kept alive here.
 */
const loans = new WeakMap<Content[], number>();

/** Lends `contents` to one request: it must be given back by `ownRequest` or `returnContents`. */
export function lendContents(contents: Content[]): Content[] {
  loans.set(contents, (loans.get(contents) ?? 0) + 1);
  return contents;
}

/**
 * True while a request holds `contents` as lent: a session's history array (what a model or plugin
 * that `readsContentsOnly` may be handed). The memo only ever appends to it, so its first
 * `contents.length` items stay as they are now, and a later request may get the same array
 * extended: a reader may keep a reference with the length instead of a copy.
 */
export function isLentHistory(contents: readonly Content[]): boolean {
  return loans.has(contents as Content[]);
}

/**
 * Gives the request a copy of what it holds lent: its contents (so a callback, tool, plugin or
 * model that edits or keeps `request.contents` changes its own array, never the memo's) and its
 * tool declarations (`ownDeclarations`). Cheap when the request already owns them (a map lookup
 * per content array and per declaration).
 */
export function ownRequest(request: LlmRequest): void {
  ownDeclarations(request);
  if (!loans.has(request.contents)) return;
  const lent = request.contents;
  request.contents = copyWithRoom(lent);
  giveBack(lent);
}

/** A request is done with `contents` (its model call ended): a lent array is given back. */
export function returnContents(contents: Content[]): void {
  if (loans.has(contents)) giveBack(contents);
}

function giveBack(contents: Content[]): void {
  const count = loans.get(contents)! - 1;
  if (count > 0) loans.set(contents, count);
  else loans.delete(contents);
}
