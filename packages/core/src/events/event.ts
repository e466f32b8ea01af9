import type { Content, FunctionCall, FunctionResponse } from "../content/content.js";
import type { Transcription, UsageMetadata } from "../content/generate-content-config.js";
import { setOwn } from "../sessions/own-keys.js";
import { createEventActions, type EventActions } from "./event-actions.js";
import { randomUuid } from "./random-uuid.js";

/**
 * One entry of a session's history: a user message, a model response, a tool call or
 * response, or an action-only event. Plain, JSON-serializable data (see `eventToJson`).
 */
export interface Event {
  id: string;
  invocationId: string;
  /** An agent's name, or `"user"`. */
  author: string;
  /** Dot-separated agent path isolating parallel sub-agents' histories. */
  branch?: string;
  /** Float seconds since the epoch. */
  timestamp: number;
  content?: Content;
  actions: EventActions;
  /** Ids of function calls in this event that run long or await the client. */
  longRunningToolIds?: string[];
  /** A streamed chunk; never persisted. */
  partial?: boolean;
  turnComplete?: boolean;
  interrupted?: boolean;
  errorCode?: string;
  errorMessage?: string;
  finishReason?: string;
  usageMetadata?: UsageMetadata;
  groundingMetadata?: Record<string, unknown>;
  citationMetadata?: Record<string, unknown>;
  customMetadata?: Record<string, unknown>;
  modelVersion?: string;
  avgLogprobs?: number;
  logprobsResult?: Record<string, unknown>;
  cacheMetadata?: Record<string, unknown>;
  inputTranscription?: Transcription;
  outputTranscription?: Transcription;
  liveSessionResumptionUpdate?: Record<string, unknown>;
  /** Workflows: the structured output of the node that wrote this event (JSON-serializable). */
  output?: unknown;
  /** Workflows: which node run wrote this event, and what it records about that run. */
  nodeInfo?: NodeInfo;
}

/** Where a workflow event comes from (http-api.md 2.2: `nodeInfo.path`). */
export interface NodeInfo {
  /**
   * The node's path: workflow names and node runs joined by `/`, each node run as
   * `name@run` (e.g. `pipeline/review@2`); a workflow's own records carry its path.
   */
  path: string;
  /**
   * What this event records about the run, for resuming and for the dev UI: `started` (a
   * workflow run began), `completed` (the node finished; `output` and `actions.route` are its
   * result), `waiting` (paused on the calls in `actions.agentState.interrupts`), `failed` (the
   * error was routed on). Absent on the events a node emits while it runs.
   */
  status?: NodeRunStatus;
}

export type NodeRunStatus = "started" | "completed" | "waiting" | "failed";

/** What `createEvent` accepts: everything optional but the author. */
export type EventInit = Partial<Omit<Event, "actions">> & { author: string; actions?: Partial<EventActions> };

let lastSeconds = 0;

/** Current time as float seconds (the unit of every agentkit timestamp). */
export function nowSeconds(): number {
  // Strictly increasing within the process (1 µs steps inside one millisecond), so events
  // created in a burst keep their order by timestamp: compaction ranges rely on it.
  const now = Date.now() / 1000;
  lastSeconds = now > lastSeconds ? now : lastSeconds + 0.000001;
  return lastSeconds;
}

/** A new event id (UUID). */
export function newEventId(): string {
  return randomUuid();
}

/** A new invocation id (`e-` + UUID, as ADK). */
export function newInvocationId(): string {
  return randomUuid("e-");
}

/** Creates an event: generates `id` and `timestamp` when missing and fills the action maps. */
export function createEvent(init: EventInit): Event {
  // Keys in the order of `{ ...init, ...fixed }` without the undefined ones. A spread copies the
  // init's keys in one step; the fixed fields then keep their place or come after, in FIXED_KEYS
  // order. An init with an undefined member is built key by key instead: deleting keys afterwards
  // would put the event in V8's slow dictionary mode.
  if (hasUndefinedMember(init)) return createEventKeyByKey(init);
  const event = { ...init } as Record<string, unknown>;
  event.id = init.id ?? newEventId();
  event.invocationId = init.invocationId ?? "";
  // `author` is the init's own (copied above, or absent as before).
  event.timestamp = init.timestamp ?? nowSeconds();
  event.actions = createEventActions(init.actions);
  return event as unknown as Event;
}

function hasUndefinedMember(init: EventInit): boolean {
  for (const key in init)
    if (Object.hasOwn(init, key) && (init as Record<string, unknown>)[key] === undefined) return true;
  return false;
}

function createEventKeyByKey(init: EventInit): Event {
  const fixed: Pick<Event, FixedKey> = {
    id: init.id ?? newEventId(),
    invocationId: init.invocationId ?? "",
    author: init.author,
    timestamp: init.timestamp ?? nowSeconds(),
    actions: createEventActions(init.actions),
  };
  const event: Record<string, unknown> = {};
  const source = init as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const value = Object.hasOwn(fixed, key) ? fixed[key as FixedKey] : source[key];
    if (value !== undefined) setOwn(event, key, value);
  }
  for (const key of FIXED_KEYS) if (!Object.hasOwn(event, key) && fixed[key] !== undefined) event[key] = fixed[key];
  return event as unknown as Event;
}

type FixedKey = "id" | "invocationId" | "author" | "timestamp" | "actions";
const FIXED_KEYS: readonly FixedKey[] = ["id", "invocationId", "author", "timestamp", "actions"];

// The part loops below index instead of `for…of`: stored events' part arrays are frozen, and on
// Node 24 iterating a frozen array (`for…of`, `some`, `every`, `filter`) takes V8's slow path,
// several times the cost of a plain array's; an indexed read costs the same on both. These run for
// every history event on every model request.

/** The function calls of an event, in part order. */
export function getFunctionCalls(event: Event): FunctionCall[] {
  const out: FunctionCall[] = [];
  const parts = event.content?.parts;
  if (!parts) return out;
  for (let i = 0; i < parts.length; i++) {
    const call = parts[i]!.functionCall;
    if (call) out.push(call);
  }
  return out;
}

/** The function responses of an event, in part order. */
export function getFunctionResponses(event: Event): FunctionResponse[] {
  const out: FunctionResponse[] = [];
  const parts = event.content?.parts;
  if (!parts) return out;
  for (let i = 0; i < parts.length; i++) {
    const response = parts[i]!.functionResponse;
    if (response) out.push(response);
  }
  return out;
}

/** True when the last part is a code execution result (the model must see it next). */
export function hasTrailingCodeExecutionResult(event: Event): boolean {
  const parts = event.content?.parts;
  return !!parts && parts.length > 0 && parts[parts.length - 1]!.codeExecutionResult !== undefined;
}

/**
 * True when the event is the agent's final answer for this turn: shown to the user and
 * nothing further follows from it (no pending calls, not a partial chunk).
 */
export function isFinalResponse(event: Event): boolean {
  if (event.actions.skipSummarization || (event.longRunningToolIds && event.longRunningToolIds.length > 0)) {
    return true;
  }
  return !hasFunctionPart(event) && !event.partial && !hasTrailingCodeExecutionResult(event);
}

/** True when a part of the event calls or answers a function (no list made: asked for every event). */
function hasFunctionPart(event: Event): boolean {
  const parts = event.content?.parts;
  if (!parts) return false;
  for (let i = 0; i < parts.length; i++) if (parts[i]!.functionCall || parts[i]!.functionResponse) return true;
  return false;
}

/** How many function responses the event carries (`getFunctionResponses(event).length` without the list). */
export function countFunctionResponses(event: Event): number {
  let n = 0;
  const parts = event.content?.parts;
  if (parts) for (let i = 0; i < parts.length; i++) if (parts[i]!.functionResponse) n++;
  return n;
}
