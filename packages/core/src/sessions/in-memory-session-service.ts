import { randomUUID } from "node:crypto";
import { SessionAlreadyExistsError, SessionNotFoundError, StaleSessionError } from "../errors/session-errors.js";
import type { Event } from "../events/event.js";
import { nowSeconds } from "../events/event.js";
import {
  BaseSessionService,
  type AppendEventRequest,
  type CreateSessionRequest,
  type DeleteSessionRequest,
  type GetSessionRequest,
  type ListSessionsRequest,
} from "./base-session-service.js";
import { validateSessionKey, validateSessionKeyPart } from "./session-key-validation.js";
import { filterEvents, type ListSessionsResponse, type Session } from "./session.js";
import { assignOwn } from "./own-keys.js";
import { mergeState, splitStateDelta, withoutTempKeys } from "./state.js";

/** What the store keeps per session: only session-scoped state; app/user state live apart. */
interface StoredSession {
  id: string;
  appName: string;
  userId: string;
  state: Record<string, unknown>;
  events: Event[];
  lastUpdateTime: number;
}

/**
 * The smallest step that still changes a float-seconds timestamp near the current epoch
 * (one ulp there is ~2.4e-7), used to keep a session's lastUpdateTime strictly increasing.
 */
const TIME_STEP = 1e-6;

/**
 * Keeps sessions in process memory: for tests, development and single-process use. Everything
 * is lost when the process exits. Reads return deep copies; appends are serialized per session
 * and detect a stale writer exactly as the persistent backends do.
 */
export class InMemorySessionService extends BaseSessionService {
  /** appName → userId → sessionId → session. */
  private readonly sessions = new Map<string, Map<string, Map<string, StoredSession>>>();
  /** appName → app state (keys without the `app:` prefix). */
  private readonly appState = new Map<string, Record<string, unknown>>();
  /** appName → userId → user state (keys without the `user:` prefix). */
  private readonly userState = new Map<string, Map<string, Record<string, unknown>>>();
  /** Tail of each session's append queue (key: JSON of app, user, id). */
  private readonly appendQueues = new Map<string, Promise<unknown>>();

  override async createSession({ appName, userId, sessionId, state }: CreateSessionRequest): Promise<Session> {
    const id = sessionId?.trim() ? sessionId.trim() : randomUUID();
    validateSessionKey({ appName, userId, sessionId: id });
    const byUser = this.userSessions(appName, userId);
    if (byUser.has(id)) throw new SessionAlreadyExistsError(id);
    const split = splitStateDelta(structuredClone(state ?? {}));
    assignOwn(this.appStateOf(appName), split.app);
    assignOwn(this.userStateOf(appName, userId), split.user);
    const stored: StoredSession = {
      id,
      appName,
      userId,
      state: split.session,
      events: [],
      lastUpdateTime: nowSeconds(),
    };
    byUser.set(id, stored);
    return this.view(stored, []);
  }

  override async getSession({ appName, userId, sessionId, config }: GetSessionRequest): Promise<Session | undefined> {
    validateSessionKey({ appName, userId, sessionId });
    const stored = this.find(appName, userId, sessionId);
    if (!stored) return undefined;
    // Filter before copying: a long history is copied only as far as the caller asked.
    return this.view(stored, filterEvents(stored.events, config));
  }

  override async listSessions({ appName, userId }: ListSessionsRequest): Promise<ListSessionsResponse> {
    validateSessionKeyPart(appName, "appName");
    if (userId !== undefined) validateSessionKeyPart(userId, "userId");
    const byApp = this.sessions.get(appName);
    if (!byApp) return { sessions: [] };
    const users = userId === undefined ? [...byApp.values()] : [byApp.get(userId) ?? new Map<string, StoredSession>()];
    const sessions: Session[] = [];
    for (const byUser of users) for (const stored of byUser.values()) sessions.push(this.view(stored, []));
    return { sessions };
  }

  override async deleteSession({ appName, userId, sessionId }: DeleteSessionRequest): Promise<void> {
    validateSessionKey({ appName, userId, sessionId });
    const byApp = this.sessions.get(appName);
    const byUser = byApp?.get(userId);
    if (!byApp || !byUser) return;
    byUser.delete(sessionId);
    if (byUser.size === 0) byApp.delete(userId);
    if (byApp.size === 0) this.sessions.delete(appName);
  }

  override async appendEvent(request: AppendEventRequest): Promise<Event> {
    if (request.event.partial) return request.event;
    const { session } = request;
    // Parallel agents of one invocation append through one session object: queue per session
    // so each append sees the lastUpdateTime the previous one left behind.
    const key = JSON.stringify([session.appName, session.userId, session.id]);
    const previous = this.appendQueues.get(key) ?? Promise.resolve();
    const result = previous.then(() => this.appendNow(request));
    const tail = result.catch(() => undefined);
    this.appendQueues.set(key, tail);
    void tail.then(() => {
      if (this.appendQueues.get(key) === tail) this.appendQueues.delete(key);
    });
    return result;
  }

  private async appendNow({ session, event }: AppendEventRequest): Promise<Event> {
    const stored = this.find(session.appName, session.userId, session.id);
    if (!stored)
      throw new SessionNotFoundError({ appName: session.appName, userId: session.userId, sessionId: session.id });
    if (stored.lastUpdateTime > session.lastUpdateTime) {
      throw new StaleSessionError(
        session.id,
        `the stored session was last updated at ${stored.lastUpdateTime}, after this copy (${session.lastUpdateTime})`,
      );
    }
    const persisted = structuredClone(event);
    // The persisted copy owns its delta: nothing the caller holds may be frozen or shared.
    const delta = withoutTempKeys(persisted.actions?.stateDelta ?? {});
    if (persisted.actions) persisted.actions.stateDelta = delta;
    const split = splitStateDelta(structuredClone(delta));
    assignOwn(this.appStateOf(stored.appName), split.app);
    assignOwn(this.userStateOf(stored.appName, stored.userId), split.user);
    assignOwn(stored.state, split.session);
    // Stored events are immutable, so reads can share them instead of copying the history.
    stored.events.push(deepFreeze(persisted));
    // Strictly increasing, so a second holder of the previous version is always detected.
    stored.lastUpdateTime = Math.max(event.timestamp, stored.lastUpdateTime + TIME_STEP);
    await super.appendEvent({ session, event });
    session.lastUpdateTime = stored.lastUpdateTime;
    return event;
  }

  private find(appName: string, userId: string, sessionId: string): StoredSession | undefined {
    return this.sessions.get(appName)?.get(userId)?.get(sessionId);
  }

  private userSessions(appName: string, userId: string): Map<string, StoredSession> {
    let byApp = this.sessions.get(appName);
    if (!byApp) this.sessions.set(appName, (byApp = new Map()));
    let byUser = byApp.get(userId);
    if (!byUser) byApp.set(userId, (byUser = new Map()));
    return byUser;
  }

  private appStateOf(appName: string): Record<string, unknown> {
    let state = this.appState.get(appName);
    if (!state) this.appState.set(appName, (state = {}));
    return state;
  }

  private userStateOf(appName: string, userId: string): Record<string, unknown> {
    let byApp = this.userState.get(appName);
    if (!byApp) this.userState.set(appName, (byApp = new Map()));
    let state = byApp.get(userId);
    if (!state) byApp.set(userId, (state = {}));
    return state;
  }

  /**
   * A copy of the stored session with the given events and the current merged state. State is
   * deep-copied; events are shared, frozen snapshots (copying them would make every read, and so
   * every invocation, cost time proportional to the history).
   */
  private view(stored: StoredSession, events: Event[]): Session {
    const state = mergeState(
      this.appState.get(stored.appName) ?? {},
      this.userState.get(stored.appName)?.get(stored.userId) ?? {},
      stored.state,
    );
    return {
      id: stored.id,
      appName: stored.appName,
      userId: stored.userId,
      state: structuredClone(state),
      events: events.slice(),
      lastUpdateTime: stored.lastUpdateTime,
    };
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
