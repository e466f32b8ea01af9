import type { Content, FunctionCall, Part } from "../content/content.js";
import { createEvent, getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";
import { RESERVED_FUNCTION_CALL_NAMES } from "./confirmation-names.js";
import { suspendedCallOf } from "./suspended-call-record.js";
import { copyWithRoom } from "../content/copy-with-room.js";
import { deepCopy } from "../content/deep-copy.js";

/**
 * What `getContents` remembers of one (session, branch, agent) between calls: the contents it
 * built for the first `seen` events. Its `contents` are frozen snapshots shared with every
 * request built from it; the array itself is the memo's own.
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
 * and rewound histories). What the incremental step cannot decide locally (a rewind, a new
 * compaction, live transcription chunks, an answer to an older call) falls back to a full build.
 */
export function getContents(
  branch: string | undefined,
  events: readonly Event[],
  agentName: string,
  slot?: ContentsMemoSlot,
): Content[] {
  const memo = slot?.get();
  if (memo?.extendable && slot) {
    const extended = extendContents(memo, branch, events, agentName);
    if (extended) {
      if (extended !== memo) slot.set(extended);
      return copyWithRoom(extended.contents);
    }
  }
  const { contents, extendable } = buildContents(branch, events, agentName);
  slot?.set({ seen: events.length, lastId: events.at(-1)?.id, contents, extendable });
  return copyWithRoom(contents);
}

/** The full build: every event of the history through every step. */
function buildContents(
  branch: string | undefined,
  events: readonly Event[],
  agentName: string,
): { contents: Content[]; extendable: boolean } {
  const rewound = applyRewinds(events);
  let filtered = rewound.filter((e) => shouldIncludeEvent(branch, e));
  if (filtered.some((e) => e.actions.compaction)) filtered = applyCompactions(filtered, agentName);
  const presented = presentEvents(mergeTranscriptions(filtered), agentName);
  const latest = rearrangeLatestFunctionResponse(presented, rewound);
  const arranged = answerDanglingCalls(rearrangeAsyncFunctionResponsesInHistory(latest));
  return { contents: frozenContentsOf(arranged), extendable: latest === presented };
}

/**
 * The memo extended by the events appended since it was made, or undefined when that cannot be
 * done locally. Appended events change nothing already built as long as none of them rewinds,
 * compacts, is a transcription chunk (which merges with its neighbours), or answers a call made
 * before them (an answer is moved next to its call, and a stand-in answer may have to go): then
 * the steps of the full build applied to the new events alone give the tail of the full result.
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
    if (event.actions.rewindBeforeInvocationId || event.actions.compaction) return undefined;
    if (!event.content && (event.inputTranscription?.text || event.outputTranscription?.text)) return undefined;
  }
  const presented = presentEvents(
    fresh.filter((e) => shouldIncludeEvent(branch, e)),
    agentName,
  );
  const calls = new Set<string>();
  for (const event of presented) {
    for (const part of event.content?.parts ?? []) {
      if (part.functionCall?.id) calls.add(part.functionCall.id);
      const answered = part.functionResponse;
      if (answered && (answered.id === undefined || !calls.has(answered.id))) return undefined;
    }
  }
  const latest = rearrangeLatestFunctionResponse(presented, fresh);
  const added = frozenContentsOf(answerDanglingCalls(rearrangeAsyncFunctionResponsesInHistory(latest)));
  const seen = events.length;
  const lastId = events.at(-1)?.id;
  if (latest !== presented) return { seen, lastId, contents: memo.contents.concat(added), extendable: false };
  // The memo owns its array: appending in place keeps an extension O(new events).
  memo.contents.push(...added);
  return { seen, lastId, contents: memo.contents, extendable: true };
}

/** Other agents' turns become user context; this agent's and the user's events stay as they are. */
function presentEvents(events: Event[], agentName: string): Event[] {
  const presented: Event[] = [];
  for (const event of events) {
    if (isOtherAgentReply(agentName, event)) {
      const converted = presentOtherAgentMessage(event);
      if (converted) presented.push(converted);
    } else {
      presented.push(event);
    }
  }
  return presented;
}

function frozenContentsOf(events: Event[]): Content[] {
  const out: Content[] = [];
  for (const event of events) if (event.content) out.push(frozenContent(event.content));
  return out;
}

/** What the model reads for a call the client has not answered yet (a paused long-running call). */
export const PENDING_CALL_RESPONSE = {
  status: "pending",
  message: "This long-running call has not returned yet; its result will arrive in a later message.",
} as const;

/** What the model reads for a call that never got a response (its run stopped). */
export const UNANSWERED_CALL_RESPONSE = {
  error: "This tool call was interrupted before it returned (the run stopped); its outcome is unknown.",
} as const;

/**
 * Every provider except Gemini refuses a request whose function call is not followed by its
 * response (and Gemini refuses unequal counts), so a request must never carry one: a call left
 * without a response (a paused long-running call, or a call whose run was killed before the
 * runner could record the interruption) gets a stand-in response right after it, the same on
 * every adapter. Calls without an id (providers that do not use them) are left as they are.
 */
function answerDanglingCalls(events: Event[]): Event[] {
  const answered = new Set<string>();
  for (const event of events) for (const r of getFunctionResponses(event)) if (r.id) answered.add(r.id);
  const isDangling = (c: FunctionCall) => c.id !== undefined && c.id !== "" && !answered.has(c.id);
  if (!events.some((e) => getFunctionCalls(e).some(isDangling))) return events;
  const out: Event[] = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    out.push(event);
    const missing = getFunctionCalls(event).filter(isDangling);
    if (missing.length === 0) continue;
    const parts: Part[] = missing.map((c) => ({
      functionResponse: {
        id: c.id!,
        name: c.name ?? "",
        response: { ...(event.longRunningToolIds?.includes(c.id!) ? PENDING_CALL_RESPONSE : UNANSWERED_CALL_RESPONSE) },
      },
    }));
    const next = events[i + 1];
    if (next && getFunctionResponses(next).length > 0) {
      out.push({
        ...next,
        content: { role: next.content?.role ?? "user", parts: [...(next.content?.parts ?? []), ...parts] },
      });
      i += 1;
    } else {
      const { invocationId, author, branch, timestamp } = event;
      out.push(
        createEvent({
          id: `${event.id}-answers`,
          invocationId,
          author,
          branch,
          timestamp,
          content: { role: "user", parts },
        }),
      );
    }
  }
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
  for (const p of event.content?.parts ?? []) {
    const name = p.functionCall?.name ?? p.functionResponse?.name;
    if (name !== undefined && INTERNAL_FUNCTION_NAMES.has(name)) return true;
  }
  return false;
}

function shouldIncludeEvent(branch: string | undefined, event: Event): boolean {
  return (
    !event.partial &&
    !isEmptyContent(event) &&
    isEventInBranch(branch, event) &&
    !isInternalRequestEvent(event) &&
    // What a suspended tool call shows the client is its tool's business, not the model's.
    !suspendedCallOf(event)
  );
}

/** Drops events annulled by a rewind (`actions.rewindBeforeInvocationId`). */
function applyRewinds(events: readonly Event[]): Event[] {
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

/**
 * Replaces compacted ranges by their summaries: every event whose timestamp lies in a
 * compaction's [startTimestamp, endTimestamp] is dropped (an earlier compaction event only
 * when its own range lies inside the later one's), and the summary takes the place of the range (before the first
 * kept event after `endTimestamp`). ADK Python instead drops everything from the start
 * timestamp up to the compaction event and presents the summary as another agent's turn;
 * here the summary is sent as is (role of `compactedContent`, default "model").
 */
function applyCompactions(events: Event[], agentName: string): Event[] {
  const compactions = events.filter((e) => e.actions.compaction);
  const covers = (c: Event, e: Event) => {
    if (c === e) return false;
    const { startTimestamp, endTimestamp } = c.actions.compaction!;
    const start = startTimestamp ?? Number.NEGATIVE_INFINITY;
    const inner = e.actions.compaction;
    // An earlier summary is replaced only by one whose range contains its whole range (it was
    // folded in, as tail retention does); a sliding window's neighbour summaries all stay.
    if (inner) return (inner.startTimestamp ?? Number.NEGATIVE_INFINITY) >= start && inner.endTimestamp <= endTimestamp;
    return e.timestamp >= start && e.timestamp <= endTimestamp;
  };
  const kept = events.filter((e) => !compactions.some((c) => covers(c, e)));
  const summaries = kept
    .filter((e) => e.actions.compaction)
    .map((e) => {
      const compaction = e.actions.compaction!;
      return createEvent({
        id: e.id,
        invocationId: e.invocationId,
        timestamp: compaction.endTimestamp,
        author: agentName,
        branch: e.branch,
        content: { role: compaction.compactedContent.role ?? "model", parts: compaction.compactedContent.parts ?? [] },
      });
    })
    .sort((a, b) => a.timestamp - b.timestamp);
  const out: Event[] = [];
  for (const event of kept) {
    if (event.actions.compaction) continue;
    while (summaries.length > 0 && summaries[0]!.timestamp < event.timestamp) out.push(summaries.shift()!);
    out.push(event);
  }
  return [...out, ...summaries];
}

/** Live transcriptions become text contents (consecutive chunks joined). */
function mergeTranscriptions(events: Event[]): Event[] {
  const out: Event[] = [];
  let input = "";
  let output = "";
  for (let i = 0; i < events.length; i++) {
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

function isOtherAgentReply(agentName: string, event: Event): boolean {
  return !!agentName && event.author !== agentName && event.author !== "user";
}

/** Another agent's turn as user context: "For context:" then "[agent] said: ..." lines. */
function presentOtherAgentMessage(event: Event): Event | undefined {
  if (!event.content?.parts) return event;
  const parts: Part[] = [{ text: "For context:" }];
  for (const part of event.content.parts) {
    if (part.thought) continue;
    if (part.text) parts.push({ text: `[${event.author}] said: ${part.text}` });
    else if (part.functionCall) {
      parts.push({
        text:
          `[${event.author}] called tool \`${part.functionCall.name}\` with ` +
          `parameters: ${JSON.stringify(part.functionCall.args ?? {})}`,
      });
    } else if (part.functionResponse) {
      parts.push({
        text:
          `[${event.author}] \`${part.functionResponse.name}\` tool returned ` +
          `result: ${JSON.stringify(part.functionResponse.response ?? {})}`,
      });
    } else if (part.text === undefined) parts.push(part);
  }
  if (parts.length === 1) return undefined;
  return { ...event, author: "user", content: { role: "user", parts } };
}

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
function rearrangeLatestFunctionResponse(events: Event[], allEvents: readonly Event[]): Event[] {
  if (events.length < 2) return events;
  const responses = getFunctionResponses(events[events.length - 1]!);
  if (responses.length === 0) return events;
  let ids = new Set(responses.map((r) => r.id));
  if (getFunctionCalls(events[events.length - 2]!).some((c) => ids.has(c.id))) return events;

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
function rearrangeAsyncFunctionResponsesInHistory(events: Event[]): Event[] {
  const responseIndex = new Map<string | undefined, number>();
  events.forEach((event, i) => {
    for (const r of getFunctionResponses(event)) responseIndex.set(r.id, i);
  });
  const out: Event[] = [];
  for (const event of events) {
    if (event.content?.parts?.some((p) => p.functionResponse)) continue;
    out.push(event);
    const calls = getFunctionCalls(event);
    if (calls.length === 0) continue;
    const indices = [
      ...new Set(calls.flatMap((c) => (responseIndex.has(c.id) ? [responseIndex.get(c.id)!] : []))),
    ].sort((a, b) => a - b);
    if (indices.length === 1) out.push(events[indices[0]!]!);
    else if (indices.length > 1) out.push(mergeFunctionResponseEvents(indices.map((i) => events[i]!)));
  }
  return out;
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
