import type { Event } from "../events/event.js";
import type { GetSessionConfig, ListEventsResponse, ListSessionsResponse, Session } from "./session.js";
import { setOwn } from "./own-keys.js";
import { TEMP_PREFIX, withoutTempKeys } from "./state.js";

export interface CreateSessionRequest {
  appName: string;
  userId: string;
  /** Client-chosen id; generated (UUID) when omitted. A duplicate throws `SessionAlreadyExistsError`. */
  sessionId?: string;
  /** Initial state; `app:`/`user:` keys go to the shared app/user state, `temp:` keys are dropped. */
  state?: Record<string, unknown>;
}

export interface GetSessionRequest {
  appName: string;
  userId: string;
  sessionId: string;
  config?: GetSessionConfig;
}

export interface ListSessionsRequest {
  appName: string;
  /** When omitted, sessions of every user of the app. */
  userId?: string;
}

export interface DeleteSessionRequest {
  appName: string;
  userId: string;
  sessionId: string;
}

export interface ListEventsRequest {
  appName: string;
  userId: string;
  sessionId: string;
  pageSize?: number;
  pageToken?: string;
}

export interface AppendEventRequest {
  /** The session as the writer last saw it; updated in place. */
  session: Session;
  event: Event;
}

/**
 * Stores sessions and their events. `appendEvent` is the single write path: it applies the
 * event's state delta (app/user/session scopes), persists the event, and rejects a stale
 * writer with `StaleSessionError`.
 */
export abstract class BaseSessionService {
  abstract createSession(request: CreateSessionRequest): Promise<Session>;
  /** The session, or `undefined` when it does not exist for this app and user. */
  abstract getSession(request: GetSessionRequest): Promise<Session | undefined>;
  abstract listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse>;
  /** Deletes the session and its events; deleting a missing session is not an error. */
  abstract deleteSession(request: DeleteSessionRequest): Promise<void>;

  /**
   * Appends an event. Partial (streamed) events are returned untouched and never stored.
   * Subclasses persist through `appendEvent` and call `super.appendEvent` (or
   * `applyEventToSession`) to update the in-memory session the caller holds.
   */
  async appendEvent({ session, event }: AppendEventRequest): Promise<Event> {
    if (event.partial) return event;
    applyEventToSession(session, event);
    return event;
  }

  /** Pages through a session's events (default: everything in one page). */
  async listEvents(request: ListEventsRequest): Promise<ListEventsResponse> {
    const session = await this.getSession(request);
    const events = session?.events ?? [];
    const start = request.pageToken ? Number.parseInt(request.pageToken, 10) || 0 : 0;
    const size = request.pageSize && request.pageSize > 0 ? request.pageSize : events.length;
    const page = events.slice(start, start + size);
    const next = start + size < events.length ? String(start + size) : undefined;
    return next ? { events: page, nextPageToken: next } : { events: page };
  }

  /** Releases connections; the default has nothing to release. */
  async close(): Promise<void> {}
}

/**
 * Applies an event to the caller's session object: the state delta (temp keys included, so
 * later steps of the same invocation see them) and the event itself, with temp keys removed
 * from the stored delta.
 */
export function applyEventToSession(session: Session, event: Event): void {
  const delta = event.actions?.stateDelta;
  if (delta && Object.keys(delta).length > 0) {
    for (const [k, v] of Object.entries(delta)) setOwn(session.state, k, v);
    if (Object.keys(delta).some((k) => k.startsWith(TEMP_PREFIX))) event.actions.stateDelta = withoutTempKeys(delta);
  }
  session.events.push(event);
  session.lastUpdateTime = Math.max(session.lastUpdateTime, event.timestamp);
}
