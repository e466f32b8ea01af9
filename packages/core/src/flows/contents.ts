import type { Content } from "../content/content.js";
import type { Event } from "../events/event.js";
import { copyWithRoom } from "../content/copy-with-room.js";
import { answerDanglingCalls } from "./answer-dangling-calls.js";
import { compactedEvents, withSummaries } from "./apply-compactions.js";
import { applyRewinds } from "./apply-rewinds.js";
import { frozenContentsOf } from "./frozen-content.js";
import { isLentHistory, lendContents } from "./shared-contents.js";
import { mergeTranscriptions } from "./merge-transcriptions.js";
import { isOtherAgentReply, presentEvents } from "./present-events.js";
import {
  rearrangeAsyncFunctionResponsesInHistory,
  rearrangeLatestFunctionResponse,
} from "./rearrange-function-responses.js";
import { shouldIncludeEvent } from "./should-include-event.js";

// The steps of the build live in files of their own: which events a request sees
// (should-include-event.ts), rewinds and compactions applied (apply-rewinds.ts,
// apply-compactions.ts), live transcriptions joined (merge-transcriptions.ts), other agents'
// turns presented (present-events.ts), calls paired with their responses
// (rearrange-function-responses.ts, answer-dangling-calls.ts), shared frozen snapshots
// (frozen-content.ts).

/**
 * What `getContents` remembers of one (session, branch, agent) between calls: the contents it
 * built for the first `seen` events. Its `contents` are frozen snapshots shared with every
 * request built from it; the array itself is the memo's own, lent to a request (without a copy)
 * only by `getLentContents`.
 */
export interface ContentsMemo {
  readonly seen: number;
  /** Id of event `seen - 1`: a history that no longer starts with the same events is rebuilt. */
  readonly lastId: string | undefined;
  readonly contents: Content[];
  /**
   * False when the newest event answered an older call: the build then dropped what came between
   * the call and its answer, which holds only while that answer is the newest event.
   */
  readonly extendable: boolean;
  /**
   * When the history holds a compaction and no rewind: its included events with the compacted
   * ones dropped (`compactedEvents`), the memo's own array. A new compaction is applied to it
   * and the events since, instead of to the whole history, so a compacted session does not cost
   * its length every `compactionInterval` runs.
   */
  readonly compacted?: Event[];
}

/** Where `getContents` keeps its memo for one (session, branch, agent). */
export interface ContentsMemoSlot {
  get(): ContentsMemo | undefined;
  set(memo: ContentsMemo): void;
}

/**
 * Builds the model's `contents` from session history, following ADK's `contents.py`:
 * rewinds and compactions applied, other branches and internal (auth/confirmation) events
 * dropped, other agents' turns presented as user context, function calls and responses
 * paired. Contents are not merged by role (adapters whose provider requires alternation
 * merge consecutive same-role contents themselves), and client-generated `adk-` call ids are
 * kept (unlike ADK Python) because most providers need ids to pair calls with responses.
 *
 * The returned array is new on every call (callbacks may add, remove and replace contents);
 * its contents are frozen snapshots shared between requests (replace one to change it, e.g.
 * `request.contents[i] = { ...c, parts: [...] }`). With a memo slot only the events appended
 * since the last call are processed, so a request costs the same at turn 5,000 as at turn 5;
 * the result is the same as a full build (a test compares both on long, branched, compacted
 * and rewound histories). What the incremental step cannot decide locally (a rewind, live
 * transcription chunks, an answer to an older call) falls back to a full build; a new compaction
 * is applied to the memo's compacted history and the events since (`ContentsMemo.compacted`).
 */
export function getContents(
  branch: string | undefined,
  events: readonly Event[],
  agentName: string,
  slot?: ContentsMemoSlot,
): Content[] {
  return copyWithRoom(memoContents(branch, events, agentName, slot));
}

/**
 * `getContents` without the copy: the memo's own array, lent (`lendContents`), which the next
 * call for the same slot extends in place once it is given back (without a slot, a new array the
 * caller owns). For the flow only: it must
 * `ownRequest` the request before anything but itself or a `readsContentsOnly` model can see
 * it, and give the array back (`returnContents`) when the model call ends.
 */
export function getLentContents(
  branch: string | undefined,
  events: readonly Event[],
  agentName: string,
  slot?: ContentsMemoSlot,
): Content[] {
  // Without a memo the build's array is the caller's own: nothing to lend.
  if (!slot) return buildContents(branch, events, agentName).contents;
  return lendContents(memoContents(branch, events, agentName, slot));
}

/** The memo's contents for `events`, extended or rebuilt (the memo's own array: not to edit). */
function memoContents(
  branch: string | undefined,
  events: readonly Event[],
  agentName: string,
  slot: ContentsMemoSlot | undefined,
): Content[] {
  const memo = slot?.get();
  if (memo?.extendable && slot) {
    const extended = extendContents(memo, branch, events, agentName);
    if (extended) {
      if (extended !== memo) slot.set(extended);
      return extended.contents;
    }
  }
  const built = buildContents(branch, events, agentName);
  slot?.set({ seen: events.length, lastId: events.at(-1)?.id, ...built });
  return built.contents;
}

/** The full build: every event of the history through every step. */
function buildContents(
  branch: string | undefined,
  events: readonly Event[],
  agentName: string,
): { contents: Content[]; extendable: boolean; compacted?: Event[] } {
  const rewound = applyRewinds(events);
  const filtered = rewound.filter((e) => shouldIncludeEvent(branch, e));
  if (!filtered.some((e) => e.actions.compaction)) return contentsOf(filtered, rewound, agentName);
  const compacted = compactedEvents(filtered);
  const built = contentsOf(withSummaries(compacted, agentName), rewound, agentName);
  // A rewind annuls events anywhere in the history, so only a history without one is kept compacted.
  return rewound.length === events.length ? { ...built, compacted } : built;
}

/** The steps after the branch filter, rewinds and compactions: `history` is the rewound history. */
function contentsOf(
  filtered: Event[],
  history: readonly Event[],
  agentName: string,
): { contents: Content[]; extendable: boolean } {
  const presented = presentEvents(mergeTranscriptions(filtered), agentName);
  const latest = rearrangeLatestFunctionResponse(presented, history);
  const arranged = answerDanglingCalls(rearrangeAsyncFunctionResponsesInHistory(latest));
  return { contents: frozenContentsOf(arranged), extendable: latest === presented };
}

/**
 * The memo extended by the events appended since it was made, or undefined when that cannot be
 * done locally. Appended events change nothing already built as long as none of them rewinds,
 * is a transcription chunk (which merges with its neighbours), or answers a call made before
 * them (an answer is moved next to its call, and a stand-in answer may have to go): then the
 * steps of the full build applied to the new events alone give the tail of the full result. A
 * new compaction is applied to the memo's compacted history and the new events (`compacted`).
 */
function extendContents(
  memo: ContentsMemo,
  branch: string | undefined,
  events: readonly Event[],
  agentName: string,
): ContentsMemo | undefined {
  if (memo.seen === 0 || memo.seen > events.length || events[memo.seen - 1]!.id !== memo.lastId) return undefined;
  if (memo.seen === events.length) return memo;
  const fresh = events.slice(memo.seen);
  for (const event of fresh) {
    if (event.actions.rewindBeforeInvocationId) return undefined;
    if (!event.content && (event.inputTranscription?.text || event.outputTranscription?.text)) return undefined;
  }
  const included = fresh.filter((e) => shouldIncludeEvent(branch, e));
  if (included.some((e) => e.actions.compaction)) {
    return memo.compacted ? recompacted(memo.compacted, included, events, agentName) : undefined;
  }
  const presented = presentEvents(included, agentName);
  const calls = new Set<string>();
  for (const event of presented) {
    const parts = event.content?.parts ?? [];
    // Indexed: stored parts arrays are frozen, and iterating a frozen array is V8's slow path.
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part.functionCall?.id) calls.add(part.functionCall.id);
      const answered = part.functionResponse;
      if (answered && (answered.id === undefined || !calls.has(answered.id))) return undefined;
    }
  }
  const latest = rearrangeLatestFunctionResponse(presented, fresh);
  const added = frozenContentsOf(answerDanglingCalls(rearrangeAsyncFunctionResponsesInHistory(latest)));
  const seen = events.length;
  const lastId = events.at(-1)?.id;
  const compacted = memo.compacted;
  // Appended events are never covered by an earlier compaction (`compactedEvents`).
  if (compacted) for (const event of included) compacted.push(event);
  if (latest !== presented)
    return { seen, lastId, contents: memo.contents.concat(added), extendable: false, compacted };
  // The memo owns its array: appending in place keeps an extension O(new events), unless a
  // request still holds it (a concurrent run on the session): then that request's view stays.
  if (isLentHistory(memo.contents))
    return { seen, lastId, contents: memo.contents.concat(added), extendable: true, compacted };
  memo.contents.push(...added);
  return { seen, lastId, contents: memo.contents, extendable: true, compacted };
}

/**
 * The memo rebuilt after a new compaction: the full build's steps over the compacted history
 * and the new events (the summaries and what no summary covers), not over the whole history.
 * The same result as a full build, since the compacted history already is what the full build's
 * compaction step keeps of the earlier events (`compactedEvents`), and a history without a
 * rewind is its own rewound history.
 */
function recompacted(
  previous: readonly Event[],
  included: readonly Event[],
  events: readonly Event[],
  agentName: string,
): ContentsMemo {
  const compacted = compactedEvents(previous.concat(included));
  const built = contentsOf(withSummaries(compacted, agentName), events, agentName);
  return { seen: events.length, lastId: events.at(-1)?.id, ...built, compacted };
}

/**
 * Contents of the current turn only (`includeContents: "none"`): from the latest user
 * message or other agent's reply in this branch onwards.
 */
export function getCurrentTurnContents(
  branch: string | undefined,
  events: readonly Event[],
  agentName: string,
): Content[] {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (shouldIncludeEvent(branch, event) && (event.author === "user" || isOtherAgentReply(agentName, event))) {
      return getContents(branch, events.slice(i), agentName);
    }
  }
  return [];
}

/**
 * Inserts instruction contents before the trailing run of plain user contents (after the
 * last model content or function response), as ADK does for dynamic instructions.
 */
export function insertInstructionContents(contents: Content[], instructionContents: Content[]): void {
  if (instructionContents.length === 0) return;
  let index = contents.length;
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]!;
    if (c.role !== "user" || (c.parts ?? []).some((p) => p.functionResponse)) {
      index = i + 1;
      break;
    }
    index = i;
  }
  contents.splice(index, 0, ...instructionContents);
}
