import { eventFromJson, eventToJson, eventToJsonText, InvalidJsonError, toSeconds } from "../events/event-json.js";
import type { Event } from "../events/event.js";
import { sessionEvents } from "./session-events.js";

/** A conversation: its state and ordered events. Plain data. */
export interface Session {
  id: string;
  appName: string;
  userId: string;
  /** Merged view: session keys plus `app:` and `user:` keys. `temp:` keys are never stored. */
  state: Record<string, unknown>;
  events: Event[];
  /** Float seconds since the epoch. */
  lastUpdateTime: number;
}

/** Identifies a session. */
export interface SessionKey {
  appName: string;
  userId: string;
  id: string;
}

/** Narrows what `getSession` returns. */
export interface GetSessionConfig {
  /** Only events with a timestamp at or after this (float seconds or a Date). */
  afterTimestamp?: number | Date;
  /** Only the most recent N events. */
  numRecentEvents?: number;
}

export interface ListSessionsResponse {
  /** Sessions without their events, most recently updated first (ties: user id, then session id). */
  sessions: Session[];
  /** Present when `pageSize` cut the list: pass it as `pageToken` for the next page. */
  nextPageToken?: string;
}

export interface ListEventsResponse {
  events: Event[];
  nextPageToken?: string;
}

export function sessionKeyToJson(key: SessionKey): string {
  return JSON.stringify({ appName: key.appName, userId: key.userId, id: key.id });
}

export function sessionKeyFromJson(raw: string | unknown): SessionKey {
  const v = typeof raw === "string" ? JSON.parse(raw) : raw;
  if (typeof v !== "object" || v === null) throw new InvalidJsonError("a session key must be a JSON object");
  const o = v as Record<string, unknown>;
  const appName = o.appName ?? o.app_name;
  const userId = o.userId ?? o.user_id;
  const id = o.id ?? o.sessionId ?? o.session_id;
  if (typeof appName !== "string" || typeof userId !== "string" || typeof id !== "string") {
    throw new InvalidJsonError("a session key needs string appName, userId and id");
  }
  return { appName, userId, id };
}

/** The wire JSON of a session (http-api.md 2.1). */
export function sessionToJson(session: Session): Record<string, unknown> {
  return {
    id: session.id,
    appName: session.appName,
    userId: session.userId,
    state: JSON.parse(JSON.stringify(session.state ?? {})),
    events: sessionEvents(session).map(eventToJson),
    lastUpdateTime: session.lastUpdateTime,
  };
}

/** `JSON.stringify(sessionToJson(session))` in one pass over the events. */
export function sessionToJsonText(session: Session): string {
  const head = JSON.stringify({
    id: session.id,
    appName: session.appName,
    userId: session.userId,
    state: session.state ?? {},
  });
  const events = sessionEvents(session).map(eventToJsonText).join(",");
  return `${head.slice(0, -1)},"events":[${events}],"lastUpdateTime":${JSON.stringify(session.lastUpdateTime)}}`;
}

/** Reads a session from JSON (camelCase or snake_case; seconds or milliseconds). */
export function sessionFromJson(raw: unknown): Session {
  const v = typeof raw === "string" ? JSON.parse(raw) : raw;
  if (typeof v !== "object" || v === null) throw new InvalidJsonError("a session must be a JSON object");
  const o = v as Record<string, unknown>;
  const key = sessionKeyFromJson(o);
  const state = o.state ?? {};
  if (typeof state !== "object" || state === null || Array.isArray(state))
    throw new InvalidJsonError("session.state must be an object");
  const events = o.events ?? [];
  if (!Array.isArray(events)) throw new InvalidJsonError("session.events must be an array");
  const last = o.lastUpdateTime ?? o.last_update_time;
  return {
    ...key,
    state: state as Record<string, unknown>,
    events: events.map(eventFromJson),
    lastUpdateTime: last === undefined ? 0 : toSeconds(last, "session.lastUpdateTime"),
  };
}

/** Applies `GetSessionConfig` to an ordered event list. */
export function filterEvents(events: Event[], config: GetSessionConfig | undefined): Event[] {
  if (!config) return events;
  let out = events;
  if (config.afterTimestamp !== undefined) {
    const after =
      config.afterTimestamp instanceof Date ? config.afterTimestamp.getTime() / 1000 : config.afterTimestamp;
    out = out.filter((e) => e.timestamp >= after);
  }
  if (config.numRecentEvents !== undefined) {
    const n = Math.max(0, Math.floor(config.numRecentEvents));
    out = n === 0 ? [] : out.slice(-n);
  }
  return out;
}
