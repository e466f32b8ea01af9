import { createHash, randomUUID } from "node:crypto";
import {
  BaseSessionService,
  ConfigurationError,
  createEvent,
  filterEvents,
  nowSeconds,
  SessionAlreadyExistsError,
  SessionError,
  SessionNotFoundError,
  type EventWrite,
  type CreateSessionRequest,
  type DeleteSessionRequest,
  type Event,
  type GetSessionRequest,
  type ListEventsRequest,
  type ListEventsResponse,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type Session,
} from "@agentkit/core";
import {
  decodeSessionPageToken,
  mergeState,
  pageSessions,
  sessionPageSize,
  splitStateDelta,
  validateSessionKey,
  validateSessionKeyPart,
} from "@agentkit/core/internal";
import { ManagedHttpClient, ManagedSessionApiError, type Operation } from "./managed-http-client.js";
import { rfc3339ToSeconds, secondsToRfc3339 } from "./rfc3339.js";
import { fromSessionEvent, toSessionEvent, type SessionEventResource } from "./session-event-mapping.js";

export interface ManagedSessionServiceOptions {
  /** Google Cloud project id or number. */
  project: string;
  /** Region of the Agent Engine, e.g. "us-central1". */
  location: string;
  /**
   * The Agent Engine (reasoning engine) id holding the sessions. When omitted, each app name is
   * used as the engine id (or a full `projects/…/reasoningEngines/…` name), one engine per app.
   */
  reasoningEngineId?: string;
  /** API root (default `https://{location}-aiplatform.googleapis.com`). */
  baseUrl?: string;
  /** Default "v1beta1" (the version with client-chosen session ids and raw events). */
  apiVersion?: string;
  /** Returns an OAuth access token, called before every request (cache it yourself). */
  getAccessToken?: () => string | Promise<string>;
  /** A fixed token, instead of `getAccessToken`. */
  accessToken?: string;
  /** Custom fetch (proxies, tests). */
  fetch?: typeof globalThis.fetch;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /**
   * The largest answer read, in bytes (default 256 MiB, room for a page of events with inline
   * media): a larger one, or one that never ends, is cancelled and is `MANAGED_SESSION_UNAVAILABLE`.
   */
  maxResponseBytes?: number;
  /** Long-running operation polling (default every 500 ms, at most 60 times). */
  pollIntervalMs?: number;
  maxPolls?: number;
  /** Extra headers on every request (e.g. `x-goog-user-project`). */
  headers?: Record<string, string>;
}

/** The API's session resource. */
interface SessionResource {
  name: string;
  userId: string;
  displayName?: string;
  sessionState?: Record<string, unknown>;
  createTime?: string;
  updateTime?: string;
}

/** Reserved sessions holding shared state (the API itself keeps state per session only). */
const APP_STATE_SESSION = "agentkit-app-state";
const APP_STATE_USER = "agentkit:app-state";
const STATE_AUTHOR = "agentkit-state";

function hashId(prefix: string, ...parts: string[]): string {
  return `${prefix}-${createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 40)}`;
}

/** The managed session id of (user, session): the API's ids are engine-wide and limited to [a-z0-9-]. */
export function managedSessionId(userId: string, sessionId: string): string {
  return hashId("s", userId, sessionId);
}

function userStateSessionId(userId: string): string {
  return hashId("u", userId);
}

function isStatus(error: unknown, status: number): boolean {
  return error instanceof ManagedSessionApiError && error.status === status;
}

const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

function checkMaxResponseBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ConfigurationError(`ManagedSessionService: maxResponseBytes must be a positive integer; got ${value}`);
  return value;
}

/** Keeps only session-scoped keys of a stored sessionState (shared keys live in their own sessions). */
function sessionScoped(state: Record<string, unknown> | undefined): Record<string, unknown> {
  return splitStateDelta(state ?? {}).session;
}

/**
 * A client of a managed session service: the Vertex AI Agent Engine Sessions REST API
 * (docs/sessions-mongodb.md, "Managed sessions"). Sessions, events (with the full agentkit
 * event as `rawEvent`) and their state delta live in the service; agentkit adds app/user state
 * scoping through reserved sessions, arbitrary session ids through hashed managed ids, and a
 * stale-writer check on the session's update time.
 */
export class ManagedSessionService extends BaseSessionService {
  private readonly http: ManagedHttpClient;
  private readonly pollIntervalMs: number;
  private readonly maxPolls: number;

  constructor(private readonly options: ManagedSessionServiceOptions) {
    super();
    for (const field of ["project", "location"] as const) {
      if (typeof options?.[field] !== "string" || options[field] === "")
        throw new ConfigurationError(`ManagedSessionService needs a non-empty "${field}"`);
    }
    const token = options.accessToken;
    const getAccessToken = options.getAccessToken ?? (token ? () => token : undefined);
    this.http = new ManagedHttpClient({
      baseUrl: options.baseUrl ?? `https://${options.location}-aiplatform.googleapis.com`,
      apiVersion: options.apiVersion ?? "v1beta1",
      getAccessToken,
      fetch: options.fetch ?? globalThis.fetch,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxResponseBytes: checkMaxResponseBytes(options.maxResponseBytes),
      headers: options.headers ?? {},
    });
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.maxPolls = options.maxPolls ?? 60;
  }

  /** The engine resource name an app's sessions live under. */
  private engine(appName: string): string {
    validateSessionKeyPart(appName, "appName");
    const { project, location, reasoningEngineId } = this.options;
    if (reasoningEngineId) return `projects/${project}/locations/${location}/reasoningEngines/${reasoningEngineId}`;
    if (appName.startsWith("projects/")) return appName;
    return `projects/${project}/locations/${location}/reasoningEngines/${encodeURIComponent(appName)}`;
  }

  private async fetchSession(appName: string, managedId: string): Promise<SessionResource | undefined> {
    try {
      return await this.http.request<SessionResource>("GET", `${this.engine(appName)}/sessions/${managedId}`);
    } catch (error) {
      if (isStatus(error, 404)) return undefined;
      throw error;
    }
  }

  private async listAll<T>(path: string, field: string, query: Record<string, string | undefined> = {}): Promise<T[]> {
    const out: T[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.http.request<Record<string, unknown>>("GET", path, { query: { ...query, pageToken } });
      out.push(...((page[field] as T[] | undefined) ?? []));
      pageToken = typeof page.nextPageToken === "string" && page.nextPageToken ? page.nextPageToken : undefined;
    } while (pageToken);
    return out;
  }

  private async createManaged(
    appName: string,
    managedId: string,
    body: Record<string, unknown>,
  ): Promise<SessionResource> {
    const operation = await this.http.request<Operation>("POST", `${this.engine(appName)}/sessions`, {
      query: { sessionId: managedId },
      body,
    });
    const done = await this.http.waitFor(operation, this.pollIntervalMs, this.maxPolls);
    if (done.error) {
      if (done.error.code === 6) throw new SessionAlreadyExistsError(String(body.displayName ?? managedId));
      throw new SessionError(`Managed session creation failed: ${done.error.message ?? "unknown error"}`, {
        code: "MANAGED_SESSION_API_ERROR",
      });
    }
    const created = await this.fetchSession(appName, managedId);
    if (!created)
      throw new SessionError(`Managed session ${managedId} vanished right after its creation`, {
        code: "MANAGED_SESSION_API_ERROR",
      });
    return created;
  }

  /** Writes shared state as an event on its reserved session (the service merges deltas per key). */
  private async writeShared(
    appName: string,
    managedId: string,
    userId: string,
    delta: Record<string, unknown>,
  ): Promise<void> {
    if (Object.keys(delta).length === 0) return;
    const event = createEvent({ author: STATE_AUTHOR, invocationId: STATE_AUTHOR, actions: { stateDelta: delta } });
    const path = `${this.engine(appName)}/sessions/${managedId}:appendEvent`;
    try {
      await this.http.request("POST", path, { body: toSessionEvent(event, delta) });
    } catch (error) {
      if (!isStatus(error, 404)) throw error;
      try {
        await this.createManaged(appName, managedId, { userId, displayName: STATE_AUTHOR, sessionState: {} });
      } catch (createError) {
        // Another writer created it first: fine, append below.
        if (!(createError instanceof SessionAlreadyExistsError) && !isStatus(createError, 409)) throw createError;
      }
      await this.http.request("POST", path, { body: toSessionEvent(event, delta) });
    }
  }

  private async readShared(
    appName: string,
    userIds: string[],
  ): Promise<[Record<string, unknown>, Map<string, Record<string, unknown>>]> {
    const [app, ...users] = await Promise.all([
      this.fetchSession(appName, APP_STATE_SESSION),
      ...userIds.map((u) => this.fetchSession(appName, userStateSessionId(u))),
    ]);
    const byUser = new Map<string, Record<string, unknown>>();
    for (const [i, u] of userIds.entries()) byUser.set(u, users[i]?.sessionState ?? {});
    return [app?.sessionState ?? {}, byUser];
  }

  private toSession(
    resource: SessionResource,
    appName: string,
    app: Record<string, unknown>,
    user: Record<string, unknown>,
    events: Event[],
  ): Session {
    return {
      id: resource.displayName ?? resource.name.split("/").pop() ?? "",
      appName,
      userId: resource.userId,
      state: mergeState(app, user, sessionScoped(resource.sessionState)),
      events,
      lastUpdateTime: rfc3339ToSeconds(resource.updateTime) ?? rfc3339ToSeconds(resource.createTime) ?? 0,
    };
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SessionError || error instanceof ConfigurationError) throw error;
      throw new SessionError(
        `Managed session service failed: ${error instanceof Error ? error.message : String(error)}`,
        { code: "MANAGED_SESSION_API_ERROR", cause: error },
      );
    }
  }

  override async createSession({ appName, userId, sessionId, state }: CreateSessionRequest): Promise<Session> {
    return this.guard(async () => {
      validateSessionKeyPart(userId, "userId");
      const id = typeof sessionId === "string" && sessionId.trim() ? sessionId.trim() : randomUUID();
      validateSessionKeyPart(id, "sessionId");
      const split = splitStateDelta(JSON.parse(JSON.stringify(state ?? {})) as Record<string, unknown>);
      let created: SessionResource;
      try {
        created = await this.createManaged(appName, managedSessionId(userId, id), {
          userId,
          displayName: id,
          sessionState: split.session,
        });
      } catch (error) {
        if (isStatus(error, 409)) throw new SessionAlreadyExistsError(id, { cause: error });
        throw error;
      }
      await Promise.all([
        this.writeShared(appName, APP_STATE_SESSION, APP_STATE_USER, split.app),
        this.writeShared(appName, userStateSessionId(userId), userId, split.user),
      ]);
      const [app, users] = await this.readShared(appName, [userId]);
      return this.toSession(created, appName, app, users.get(userId) ?? {}, []);
    });
  }

  override async getSession({ appName, userId, sessionId, config }: GetSessionRequest): Promise<Session | undefined> {
    return this.guard(async () => {
      validateSessionKey({ appName, userId, sessionId });
      const managedId = managedSessionId(userId, sessionId);
      const resource = await this.fetchSession(appName, managedId);
      if (!resource || resource.userId !== userId) return undefined;
      const after = config?.afterTimestamp;
      const afterSeconds = after instanceof Date ? after.getTime() / 1000 : after;
      const [eventResources, [app, users]] = await Promise.all([
        config?.numRecentEvents === 0
          ? Promise.resolve([])
          : this.listAll<SessionEventResource>(
              `${this.engine(appName)}/sessions/${managedId}/events`,
              "sessionEvents",
              {
                // Floored to the microsecond the API keeps, so the server never drops an event at the boundary.
                ...(afterSeconds !== undefined
                  ? { filter: `timestamp>="${secondsToRfc3339(Math.floor(afterSeconds * 1e6) / 1e6)}"` }
                  : {}),
              },
            ),
        this.readShared(appName, [userId]),
      ]);
      // The filter already ran on the server; filterEvents repeats
      // it exactly (float seconds) and applies numRecentEvents.
      const events = filterEvents(eventResources.map(fromSessionEvent), config);
      return this.toSession(resource, appName, app, users.get(userId) ?? {}, events);
    });
  }

  override async listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    const { appName, userId } = request;
    // Checked before the first call: a bad page request fails without touching the API.
    sessionPageSize(request);
    decodeSessionPageToken(request.pageToken);
    return this.guard(async () => {
      if (userId !== undefined) validateSessionKeyPart(userId, "userId");
      const query = userId === undefined ? {} : { filter: `user_id="${userId.replace(/["\\]/g, "\\$&")}"` };
      let resources: SessionResource[];
      try {
        resources = await this.listAll<SessionResource>(`${this.engine(appName)}/sessions`, "sessions", query);
      } catch (error) {
        if (isStatus(error, 404)) return { sessions: [] };
        throw error;
      }
      const reserved = (r: SessionResource) => r.displayName === STATE_AUTHOR || r.userId === APP_STATE_USER;
      const own = resources.filter((r) => !reserved(r) && (userId === undefined || r.userId === userId));
      if (own.length === 0) return { sessions: [] };
      // The API's own paging cannot express this order and cursor, so the list is read whole
      // (as before) and ordered and paged here; the shared state is read for one page only.
      const page = pageSessions(
        own.map((r) => {
          const session = this.toSession(r, appName, {}, {}, []);
          return { r, lastUpdateTime: session.lastUpdateTime, userId: session.userId, id: session.id };
        }),
        request,
      );
      const next = page.nextPageToken ? { nextPageToken: page.nextPageToken } : {};
      if (page.sessions.length === 0) return { sessions: [], ...next };
      const [app, users] = await this.readShared(appName, [...new Set(page.sessions.map((p) => p.userId))]);
      return {
        ...next,
        sessions: page.sessions.map(({ r }) => this.toSession(r, appName, app, users.get(r.userId) ?? {}, [])),
      };
    });
  }

  override async deleteSession({ appName, userId, sessionId }: DeleteSessionRequest): Promise<void> {
    validateSessionKey({ appName, userId, sessionId });
    await this.guard(async () => {
      const managedId = managedSessionId(userId, sessionId);
      try {
        const operation = await this.http.request<Operation>("DELETE", `${this.engine(appName)}/sessions/${managedId}`);
        const done = await this.http.waitFor(operation, this.pollIntervalMs, this.maxPolls);
        if (done.error && done.error.code !== 5)
          throw new SessionError(`Managed session deletion failed: ${done.error.message ?? "unknown error"}`, {
            code: "MANAGED_SESSION_API_ERROR",
          });
      } catch (error) {
        if (!isStatus(error, 404)) throw error;
      }
    });
  }

  override async listEvents(request: ListEventsRequest): Promise<ListEventsResponse> {
    return this.guard(async () => {
      const managedId = managedSessionId(request.userId, request.sessionId);
      const resource = await this.fetchSession(request.appName, managedId);
      if (!resource || resource.userId !== request.userId) return { events: [] };
      const page = await this.http.request<{ sessionEvents?: SessionEventResource[]; nextPageToken?: string }>(
        "GET",
        `${this.engine(request.appName)}/sessions/${managedId}/events`,
        {
          query: {
            ...(request.pageSize && request.pageSize > 0 ? { pageSize: String(Math.floor(request.pageSize)) } : {}),
            ...(request.pageToken ? { pageToken: request.pageToken } : {}),
          },
        },
      );
      const events = (page.sessionEvents ?? []).map(fromSessionEvent);
      if (!request.pageSize && page.nextPageToken) {
        // No page size asked: the whole history, like the other backends.
        const rest = await this.listEvents({ ...request, pageToken: page.nextPageToken });
        return { events: [...events, ...rest.events] };
      }
      return page.nextPageToken ? { events, nextPageToken: page.nextPageToken } : { events };
    });
  }

  /**
   * The API has no conditional append: the staleness check reads first, which leaves a short
   * window in which two replicas both append; both events are kept and their deltas merge per key.
   */
  protected override async storeEvent(write: EventWrite): Promise<number> {
    return this.guard(async () => {
      const managedId = managedSessionId(write.userId, write.sessionId);
      const stored = await this.fetchSession(write.appName, managedId);
      if (!stored || stored.userId !== write.userId) throw new SessionNotFoundError(write);
      const storedTime = rfc3339ToSeconds(stored.updateTime) ?? 0;
      if (storedTime > write.seenLastUpdateTime) {
        throw this.staleSession(write.sessionId, storedTime, write.seenLastUpdateTime);
      }
      const delta = JSON.parse(JSON.stringify(write.event.actions.stateDelta)) as Record<string, unknown>;
      try {
        await this.http.request("POST", `${this.engine(write.appName)}/sessions/${managedId}:appendEvent`, {
          body: toSessionEvent(write.event, delta),
        });
      } catch (error) {
        if (isStatus(error, 404)) throw new SessionNotFoundError(write, { cause: error });
        throw error;
      }
      await Promise.all([
        this.writeShared(write.appName, APP_STATE_SESSION, APP_STATE_USER, write.delta.app),
        this.writeShared(write.appName, userStateSessionId(write.userId), write.userId, write.delta.user),
      ]);
      const after = await this.fetchSession(write.appName, managedId);
      return rfc3339ToSeconds(after?.updateTime) ?? Math.max(write.seenLastUpdateTime, nowSeconds());
    });
  }

  /** Aborts requests in flight; later calls fail with SESSION_SERVICE_CLOSED. */
  override async close(): Promise<void> {
    // Abort first: an append waiting on the network then fails at once instead of holding close.
    this.http.close();
    await super.close();
  }
}
