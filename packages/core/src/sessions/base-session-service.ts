import { KeyedQueue } from "../concurrency/keyed-queue.js";
import { isThenable } from "../concurrency/is-thenable.js";
import { LastJsonKey } from "../content/last-json-key.js";
import { StaleSessionError } from "../errors/session-errors.js";
import { createEventActions, hasActionMaps } from "../events/event-actions.js";
import type { Event } from "../events/event.js";
import { hasOwnKeys, setOwn } from "./own-keys.js";
import type { GetSessionConfig, ListEventsResponse, ListSessionsResponse, Session } from "./session.js";
import { validateSessionKey } from "./session-key-validation.js";
import { hasTempKey, splitStateDelta, withoutTempKeys } from "./state.js";
import { pushSessionEvent, sessionEvents } from "./session-events.js";
import { rememberStoredSnapshot } from "./stored-snapshots.js";

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
  /**
   * At most this many sessions (a positive integer; above 1000 it is 1000). When omitted, every
   * session. Sessions are listed most recently updated first either way.
   */
  pageSize?: number;
  /** `nextPageToken` of the previous page, to read the next one. */
  pageToken?: string;
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
 * One append, as the base class hands it to a backend's `storeEvent`: the key (validated), the
 * event to store (a shallow copy whose `actions.stateDelta` has no `temp:` keys; the caller's
 * event is untouched), that delta split by scope (prefixes stripped from `app:`/`user:` keys),
 * and the `lastUpdateTime` of the caller's copy of the session. A store reads the write and
 * never modifies it (the delta of an event that changes no state is shared and frozen).
 */
export interface EventWrite {
  readonly appName: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly event: Event;
  readonly delta: { app: Record<string, unknown>; user: Record<string, unknown>; session: Record<string, unknown> };
  /**
   * The session's `lastUpdateTime` as the writer saw it. If the stored session was updated after
   * it (another writer appended), the store must refuse with `StaleSessionError` (see
   * `BaseSessionService.staleSession`) and store nothing.
   */
  readonly seenLastUpdateTime: number;
}

/**
 * Stores sessions and their events. `appendEvent` is the single write path and its policy lives
 * here, once, for every backend: partial events are never stored; the session key is validated;
 * appends to one session are serialized in this process (parallel agents share one session
 * object); `temp:` keys are stripped from what is stored; the delta is split into app, user and
 * session state; the caller's session object is updated only after the store succeeded. A
 * backend implements only the storage step, `storeEvent`: persist the event and apply the
 * delta atomically, refuse a stale writer, return the session's new `lastUpdateTime`.
 */
export abstract class BaseSessionService {
  /** One serial queue per session key for appends (and anything else a backend must order). */
  protected readonly sessionQueue = new KeyedQueue();

  abstract createSession(request: CreateSessionRequest): Promise<Session>;
  /** The session, or `undefined` when it does not exist for this app and user. */
  abstract getSession(request: GetSessionRequest): Promise<Session | undefined>;
  abstract listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse>;
  /** Deletes the session and its events; deleting a missing session is not an error. */
  abstract deleteSession(request: DeleteSessionRequest): Promise<void>;

  /**
   * The storage step of `appendEvent`: store `write.event`, apply `write.delta` to the stored app,
   * user and session state, and advance the session's `lastUpdateTime` (strictly, so a second
   * holder of the previous version is always detected), all or nothing. Throw
   * `SessionNotFoundError` for a missing session and `StaleSessionError` when the stored
   * session moved past `write.seenLastUpdateTime`. Returns the new `lastUpdateTime`; a store
   * that keeps a deeply frozen copy of the event in this process (what its reads return) may
   * return `{ lastUpdateTime, snapshot }` instead, so requests built later from the caller's
   * event share that copy rather than make one more. A store that is done within the call
   * returns the value, not a promise (and throws rather than rejects). `write.event` is often the
   * caller's own event object (see `storedForm`): read it, copy or serialize what is kept, and
   * never keep or change it.
   */
  protected abstract storeEvent(write: EventWrite): StoredEvent | Promise<StoredEvent>;

  /**
   * Appends an event (the single write path; backends implement `storeEvent`, not this).
   * Partial (streamed) events are returned untouched and never stored. On success the caller's
   * `session` has the event, its state delta (temp keys included, for the rest of the
   * invocation) and the new `lastUpdateTime`; on failure it is unchanged.
   */
  appendEvent(request: AppendEventRequest): Promise<Event> {
    // Not an async function: it returns the queue's own promise (an async function returning a
    // promise adds a promise and two turns of the microtask queue to every append); whatever
    // throws before the queue still reaches the caller as a rejection.
    try {
      const appended = this.appendEventNow(request);
      return isThenable(appended) ? (appended as Promise<Event>) : Promise.resolve(appended);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * `appendEvent` without its promise when the append completes within the call (the session's
   * slot free and a store that answers at once, as the in-memory one does): the event itself;
   * else a promise of it. Throws what `appendEvent` would reject with. The runner stores each
   * event of a run through `appendNow` (below), which calls this unless a subclass overrides
   * `appendEvent`; anything else should call `appendEvent`.
   * @internal
   */
  appendEventNow(request: AppendEventRequest): Event | Promise<Event> {
    const { session, event } = request;
    if (event.partial) return event;
    const key = { appName: session.appName, userId: session.userId, sessionId: session.id };
    validateSessionKey(key);
    return this.sessionQueue.runNow(SessionQueueKey.of(key), () => this.appendHeld(session, event, key));
  }

  /**
   * `appendEvent` once it holds the session's slot. Not an async function: a store that answers
   * at once (the in-memory one) completes the append in this call, and the queue frees the slot
   * without waiting for a turn of the microtask queue.
   */
  private appendHeld(
    session: Session,
    event: Event,
    key: { appName: string; userId: string; sessionId: string },
  ): Event | Promise<Event> {
    const stored = storedForm(event);
    const delta = stored.actions.stateDelta;
    const result = this.storeEvent({
      ...key,
      event: stored,
      delta: hasOwnKeys(delta) ? splitStateDelta(delta) : NO_DELTA,
      seenLastUpdateTime: session.lastUpdateTime,
    });
    if (isThenable(result)) return Promise.resolve(result).then((done) => appended(session, event, done));
    return appended(session, event, result);
  }

  /** The error a store throws when the session moved past the writer's copy. */
  protected staleSession(sessionId: string, storedTime: number, seenTime: number): StaleSessionError {
    return new StaleSessionError(
      sessionId,
      `the stored session was last updated at ${storedTime}, after this copy (${seenTime})`,
    );
  }

  /** Pages through a session's events (default: everything in one page). */
  async listEvents(request: ListEventsRequest): Promise<ListEventsResponse> {
    const session = await this.getSession(request);
    const events = session ? sessionEvents(session) : [];
    const start = request.pageToken ? Number.parseInt(request.pageToken, 10) || 0 : 0;
    const size = request.pageSize && request.pageSize > 0 ? request.pageSize : events.length;
    const page = events.slice(start, start + size);
    const next = start + size < events.length ? String(start + size) : undefined;
    return next ? { events: page, nextPageToken: next } : { events: page };
  }

  /** Releases connections; the default waits for appends in flight. Backends call `super.close()`. */
  async close(): Promise<void> {
    await this.sessionQueue.idle();
  }
}

/**
 * The event as stores get it: its actions with their four maps, and no `temp:` keys in its state
 * delta (they live for the invocation only). Most events are that already (what `createEvent`
 * makes, without temp state) and go to the store as they are: a store copies or serializes what
 * it keeps and never holds `write.event` itself, so only the others need a copy of the event and
 * its actions here.
 */
function storedForm(event: Event): Event {
  const actions = event.actions;
  if (hasActionMaps(actions) && !hasTempKey(actions.stateDelta) && Object.getPrototypeOf(event) === Object.prototype)
    return event;
  return {
    ...event,
    actions: { ...createEventActions(actions), stateDelta: withoutTempKeys(actions?.stateDelta ?? {}) },
  };
}

/** The split delta of an event that changes no state (most events): shared, frozen. */
const NO_DELTA: EventWrite["delta"] = Object.freeze({
  app: Object.freeze({}),
  user: Object.freeze({}),
  session: Object.freeze({}),
});

/** What a store's `storeEvent` returns (see there). */
export type StoredEvent = number | { lastUpdateTime: number; snapshot: Event };

/** The caller's side of a stored append: its session gets the event and the new time. */
function appended(session: Session, event: Event, result: StoredEvent): Event {
  applyEventToSession(session, event, typeof result === "number" ? undefined : result.snapshot);
  if (typeof result === "number") session.lastUpdateTime = result;
  else {
    session.lastUpdateTime = result.lastUpdateTime;
    rememberStoredSnapshot(event, result.snapshot);
  }
  return event;
}

/**
 * Appends through `appendEventNow` (no promise when the append completes within the call), or
 * through `appendEvent` when a subclass overrides it, so an override still sees every append.
 * Throws what `appendEvent` would reject with. The runner's per-event write.
 */
export function appendNow(service: BaseSessionService, request: AppendEventRequest): Event | Promise<Event> {
  return service.appendEvent === BaseSessionService.prototype.appendEvent
    ? service.appendEventNow(request)
    : service.appendEvent(request);
}

/** The key of a session in `sessionQueue` (the server's run queue uses the same form). */
export const SessionQueueKey = {
  of(key: { appName: string; userId: string; sessionId: string }): string {
    return lastSessionQueueKey.of([key.appName, key.userId, key.sessionId]);
  },
} as const;

const lastSessionQueueKey = new LastJsonKey();

/**
 * Applies an event to the caller's session object: the state delta (temp keys included, so
 * later steps of the same invocation see them) and the event itself, with temp keys removed
 * from the stored delta. `snapshot`: the store's frozen copy of the event, if it kept one
 * (`pushSessionEvent`).
 */
export function applyEventToSession(session: Session, event: Event, snapshot?: Event): void {
  const delta = event.actions?.stateDelta;
  if (delta && Object.keys(delta).length > 0) {
    for (const [k, v] of Object.entries(delta)) setOwn(session.state, k, v);
    if (hasTempKey(delta)) event.actions.stateDelta = withoutTempKeys(delta);
  }
  pushSessionEvent(session, event, snapshot);
  session.lastUpdateTime = Math.max(session.lastUpdateTime, event.timestamp);
}
