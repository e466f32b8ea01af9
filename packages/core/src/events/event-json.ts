import type { Content, Part } from "../content/content.js";
import { AgentKitError } from "../errors/agentkit-error.js";
import { createEventActions, type EventActions, hasActionMaps } from "./event-actions.js";
import { newEventId, type Event } from "./event.js";
import { camelizeKeys } from "../content/key-case.js";

/** A value that cannot be read as an event (or session) from JSON. */
export class InvalidJsonError extends AgentKitError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("INVALID_JSON", message, options);
  }
}

/** Timestamps above this are milliseconds (ADK JS/Java emit ms); below, seconds. */
const MS_THRESHOLD = 1e11;

/** Reads a timestamp in seconds or milliseconds (number or numeric string) as float seconds. */
export function toSeconds(value: unknown, field: string): number {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) {
    throw new InvalidJsonError(`${field} must be a number of seconds since the epoch, got ${JSON.stringify(value)}`);
  }
  return n > MS_THRESHOLD ? n / 1000 : n;
}

/** Standard padded base64 from standard or URL-safe, padded or not. */
export function normalizeBase64(data: string): string {
  const std = data.replace(/-/g, "+").replace(/_/g, "/").replace(/\s+/g, "");
  const pad = std.length % 4;
  return pad === 0 ? std : std + "=".repeat(4 - pad);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

// Part members whose own keys are protocol fields (camelCase them); args/response stay as given.
const STRUCTURED_PART_MEMBERS = [
  "inlineData",
  "fileData",
  "functionCall",
  "functionResponse",
  "executableCode",
  "codeExecutionResult",
  "videoMetadata",
];

function partFromJson(raw: unknown): Part {
  if (!isObject(raw)) throw new InvalidJsonError("each content part must be an object");
  const part = camelizeKeys(raw);
  for (const member of STRUCTURED_PART_MEMBERS) {
    const v = part[member];
    if (isObject(v)) part[member] = camelizeKeys(v);
  }
  const inline = part.inlineData as { data?: unknown } | undefined;
  if (inline && typeof inline.data === "string") inline.data = normalizeBase64(inline.data);
  return part as Part;
}

/** Reads a content from JSON (camelCase or snake_case keys). */
export function contentFromJson(raw: unknown): Content {
  if (!isObject(raw)) throw new InvalidJsonError("content must be an object with role and parts");
  const parts = raw.parts;
  if (parts !== undefined && parts !== null && !Array.isArray(parts))
    throw new InvalidJsonError("content.parts must be an array");
  const content: Content = {};
  if (typeof raw.role === "string") content.role = raw.role;
  if (Array.isArray(parts)) content.parts = parts.map(partFromJson);
  return content;
}

function actionsFromJson(raw: unknown): EventActions {
  if (raw === undefined || raw === null) return createEventActions();
  if (!isObject(raw)) throw new InvalidJsonError("event.actions must be an object");
  const a = camelizeKeys(raw);
  for (const key of ["stateDelta", "artifactDelta", "requestedAuthConfigs", "requestedToolConfirmations"]) {
    if (a[key] === null) delete a[key];
    else if (a[key] !== undefined && !isObject(a[key]))
      throw new InvalidJsonError(`event.actions.${key} must be an object`);
  }
  if (isObject(a.compaction)) {
    const c = camelizeKeys(a.compaction);
    if (c.compactedContent !== undefined) c.compactedContent = contentFromJson(c.compactedContent);
    if (c.endTimestamp !== undefined) c.endTimestamp = toSeconds(c.endTimestamp, "compaction.endTimestamp");
    if (c.startTimestamp !== undefined) c.startTimestamp = toSeconds(c.startTimestamp, "compaction.startTimestamp");
    a.compaction = c;
  }
  for (const [k, v] of Object.entries(a)) if (v === null) delete a[k];
  return createEventActions(a as Partial<EventActions>);
}

/**
 * Reads an event from JSON as ADK servers emit it: camelCase or snake_case keys, timestamps
 * in seconds or milliseconds, base64 in either alphabet. A missing id is generated.
 */
export function eventFromJson(raw: unknown): Event {
  const input = typeof raw === "string" ? parseJson(raw) : raw;
  if (!isObject(input)) throw new InvalidJsonError("an event must be a JSON object");
  const e = camelizeKeys(input);
  for (const [k, v] of Object.entries(e)) if (v === null) delete e[k];
  if (typeof e.author !== "string" || e.author === "")
    throw new InvalidJsonError("event.author must be a non-empty string");
  if (e.id !== undefined && typeof e.id !== "string") throw new InvalidJsonError("event.id must be a string");
  if (e.invocationId !== undefined && typeof e.invocationId !== "string")
    throw new InvalidJsonError("event.invocationId must be a string");
  if (e.longRunningToolIds !== undefined && !Array.isArray(e.longRunningToolIds)) {
    throw new InvalidJsonError("event.longRunningToolIds must be an array of strings");
  }
  const event = {
    ...e,
    id: (e.id as string | undefined) ?? newEventId(),
    invocationId: (e.invocationId as string | undefined) ?? "",
    author: e.author,
    timestamp: e.timestamp === undefined ? Date.now() / 1000 : toSeconds(e.timestamp, "event.timestamp"),
    actions: actionsFromJson(e.actions),
  } as Event;
  if (e.content !== undefined) event.content = contentFromJson(e.content);
  if (Array.isArray(event.longRunningToolIds) && event.longRunningToolIds.length === 0) delete event.longRunningToolIds;
  return event;
}

/**
 * The wire JSON of an event (http-api.md 2.2): camelCase, undefined members omitted, the four
 * action maps always present, float-second timestamp, `longRunningToolIds` only when non-empty.
 */
export function eventToJson(event: Event): Record<string, unknown> {
  const out = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
  out.actions = createEventActions(out.actions as Partial<EventActions> | undefined);
  const lr = out.longRunningToolIds as string[] | undefined;
  if (lr && lr.length === 0) delete out.longRunningToolIds;
  return out;
}

/**
 * The wire JSON of an event as text: what `JSON.stringify(eventToJson(event))` gives, in one
 * serialization (the hot routes write events with it instead of copying each event first).
 */
export function eventToJsonText(event: Event): string {
  const longRunning = event.longRunningToolIds;
  // Nearly every event is already in wire form: its four maps present and no empty id list.
  // Stringifying it as it is skips a copy of the event and of its actions (a third of the cost).
  if (
    hasActionMaps(event.actions) &&
    (longRunning === undefined || (Array.isArray(longRunning) && longRunning.length > 0))
  ) {
    return JSON.stringify(event);
  }
  return JSON.stringify({
    ...event,
    actions: createEventActions(event.actions),
    longRunningToolIds: longRunning && longRunning.length > 0 ? longRunning : undefined,
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new InvalidJsonError(`not valid JSON: ${(cause as Error).message}`, { cause });
  }
}
