import { copyWithRoom } from "../content/copy-with-room.js";
import { deepCopy, frozenCopy } from "../content/deep-copy.js";
import { EMPTY_OBJECT } from "../content/snapshot-sharing.js";
import { SessionAlreadyExistsError, SessionNotFoundError } from "../errors/session-errors.js";
import type { Event } from "../events/event.js";
import { randomUuid } from "../events/random-uuid.js";
import { nowSeconds } from "../events/event.js";
import {
  BaseSessionService,
  type EventWrite,
  type CreateSessionRequest,
  type DeleteSessionRequest,
  type GetSessionRequest,
  type ListSessionsRequest,
} from "./base-session-service.js";
import { validateSessionKey, validateSessionKeyPart } from "./session-key-validation.js";
import { filterEvents, type ListSessionsResponse, type Session } from "./session.js";
import { plainSession, sessionOverLog } from "./session-events.js";
import { pageSessions } from "./session-list-page.js";
import { assignOwn, hasOwnKeys } from "./own-keys.js";
import { mergeState, splitStateDelta } from "./state.js";

/** What the store keeps per session: only session-scoped state; app/user state live apart. */
interface StoredSession {
  id: string;
  appName: string;
  userId: string;
  /** Absent until the session has state of its own: most sessions never do, and each is kept. */
  state?: Record<string, unknown>;
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

  override async createSession({ appName, userId, sessionId, state }: CreateSessionRequest): Promise<Session> {
    const given = sessionId?.trim();
    const id = given ? given : randomUuid();
    // A generated id is a UUID, which every rule accepts: only what the caller gave is checked.
    validateSessionKey(given ? { appName, userId, sessionId: id } : { appName, userId });
    const byUser = this.userSessions(appName, userId);
    if (byUser.has(id)) throw new SessionAlreadyExistsError(id);
    const split = splitStateDelta(deepCopy(state ?? {}));
    // Shared state records are made only for keys: a session of an app or user that has none
    // leaves nothing behind once it is deleted.
    if (hasOwnKeys(split.app)) assignOwn(this.appStateOf(appName), split.app);
    if (hasOwnKeys(split.user)) assignOwn(this.userStateOf(appName, userId), split.user);
    const stored: StoredSession = {
      id,
      appName,
      userId,
      state: hasOwnKeys(split.session) ? split.session : undefined,
      events: [],
      lastUpdateTime: nowSeconds(),
    };
    byUser.set(id, stored);
    return this.view(stored);
  }

  override async getSession({ appName, userId, sessionId, config }: GetSessionRequest): Promise<Session | undefined> {
    validateSessionKey({ appName, userId, sessionId });
    const stored = this.find(appName, userId, sessionId);
    if (!stored) return undefined;
    // The whole history is not copied (see view); a filtered one is, only as far as asked.
    return this.view(stored, config ? filterEvents(stored.events, config) : undefined);
  }

  override async listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    const { appName, userId } = request;
    validateSessionKeyPart(appName, "appName");
    if (userId !== undefined) validateSessionKeyPart(userId, "userId");
    const byApp = this.sessions.get(appName) ?? new Map<string, Map<string, StoredSession>>();
    const users = userId === undefined ? [...byApp.values()] : [byApp.get(userId) ?? new Map<string, StoredSession>()];
    const stored = users.flatMap((byUser) => [...byUser.values()]);
    // Page the stored rows first, so only the listed sessions' state is copied.
    const { sessions, nextPageToken } = pageSessions(stored, request);
    const page = sessions.map((s) => this.view(s, []));
    return nextPageToken ? { sessions: page, nextPageToken } : { sessions: page };
  }

  override async deleteSession({ appName, userId, sessionId }: DeleteSessionRequest): Promise<void> {
    validateSessionKey({ appName, userId, sessionId });
    const byApp = this.sessions.get(appName);
    const byUser = byApp?.get(userId);
    if (!byApp || !byUser) return;
    byUser.delete(sessionId);
    if (byUser.size > 0) return;
    byApp.delete(userId);
    // An empty shared state record goes with the last session of its user or app; state with
    // keys stays (app and user state outlive sessions, as in the persistent stores).
    const users = this.userState.get(appName);
    if (users && !hasOwnKeys(users.get(userId) ?? EMPTY_OBJECT)) {
      users.delete(userId);
      if (users.size === 0) this.userState.delete(appName);
    }
    if (byApp.size > 0) return;
    this.sessions.delete(appName);
    if (!hasOwnKeys(this.appState.get(appName) ?? EMPTY_OBJECT)) this.appState.delete(appName);
  }

  protected override storeEvent(write: EventWrite): { lastUpdateTime: number; snapshot: Event } {
    const stored = this.find(write.appName, write.userId, write.sessionId);
    if (!stored) throw new SessionNotFoundError(write);
    if (stored.lastUpdateTime > write.seenLastUpdateTime) {
      throw this.staleSession(write.sessionId, stored.lastUpdateTime, write.seenLastUpdateTime);
    }
    const { app, user, session } = write.delta;
    if (hasOwnKeys(app)) assignOwn(this.appStateOf(stored.appName), deepCopy(app));
    if (hasOwnKeys(user)) assignOwn(this.userStateOf(stored.appName, stored.userId), deepCopy(user));
    if (hasOwnKeys(session)) stored.state = assignOwn(stored.state ?? {}, deepCopy(session));
    // Stored events are immutable snapshots (nothing the caller holds is frozen or shared), so
    // reads, and requests built from the caller's event, can share them instead of copying.
    const snapshot = frozenCopy(write.event);
    stored.events.push(snapshot);
    // Strictly increasing, so a second holder of the previous version is always detected.
    stored.lastUpdateTime = Math.max(write.event.timestamp, stored.lastUpdateTime + TIME_STEP);
    return { lastUpdateTime: stored.lastUpdateTime, snapshot };
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
   * A copy of the stored session with the current merged state and `events` (a new array of
   * them), or without `events` the whole history over the stored list (`sessionOverLog`: the
   * array is built only when the caller reads it, so a run on a long session does not copy it).
   * State is deep-copied; events are shared, frozen snapshots (copying them would make every
   * read, and so every invocation, cost time proportional to the history).
   */
  private view(stored: StoredSession, events?: Event[]): Session {
    const state = mergeState(
      this.appState.get(stored.appName) ?? EMPTY_OBJECT,
      this.userState.get(stored.appName)?.get(stored.userId) ?? EMPTY_OBJECT,
      stored.state ?? EMPTY_OBJECT,
      deepCopy,
    );
    const fields = {
      id: stored.id,
      appName: stored.appName,
      userId: stored.userId,
      state,
      lastUpdateTime: stored.lastUpdateTime,
    };
    return events ? plainSession(fields, copyWithRoom(events)) : sessionOverLog(fields, stored.events);
  }
}
