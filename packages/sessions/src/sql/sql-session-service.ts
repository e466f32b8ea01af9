import { randomUUID } from "node:crypto";
import {
  AgentKitError,
  BaseSessionService,
  eventToJsonText,
  nowSeconds,
  SessionError,
  type EventWrite,
  type CreateSessionRequest,
  type Event,
  type DeleteSessionRequest,
  type GetSessionRequest,
  type ListEventsRequest,
  type ListEventsResponse,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type Session,
} from "@agentkit/core";
import {
  decodeSessionPageToken,
  SessionQueueKey,
  sessionOverLog,
  sessionPageFromRows,
  sessionPageSize,
  splitStateDelta,
  validateSessionKey,
  validateSessionKeyPart,
} from "@agentkit/core/internal";
import { SessionEventsCache } from "./session-events-cache.js";
import { migratePlan, type MigrationResult } from "./schema.js";
import {
  appendEventPlan,
  createSessionPlan,
  deleteSessionPlan,
  getSessionPlan,
  historyTailPlan,
  listEventsPlan,
  listSessionsPlan,
  type SessionKeyArgs,
} from "./session-plans.js";
import { SessionStoreError } from "./session-store-error.js";
import type { SqlDialect, SqlPlan } from "./sql-plan.js";

/**
 * How a plan runs: "write" takes the store's write lock for
 * the whole transaction, "read" reads one consistent snapshot.
 */
export type SqlPlanMode = "read" | "write";

/**
 * The session service logic shared by the SQL backends. A subclass supplies the driver: how to
 * run a plan in one transaction (`runPlan`) and how to release its connections (`closeDriver`).
 * The schema is migrated on first use (or by calling `initialize()`).
 */
export abstract class SqlSessionService extends BaseSessionService {
  private initializing: Promise<MigrationResult> | undefined;
  private closed = false;
  /** Parsed, frozen events per session: a run loads only what was appended since the last load. */
  private readonly history = new SessionEventsCache();

  protected constructor(protected readonly dialect: SqlDialect) {
    super();
  }

  /** Runs `plan` in one transaction; any error rolls it back and is rethrown. */
  protected abstract runPlan<T>(plan: SqlPlan<T>, mode: SqlPlanMode): Promise<T>;
  /** Releases the driver's connections. */
  protected abstract closeDriver(): Promise<void>;
  /** Names the store in error messages (a path or a URL without its password). */
  protected abstract describeStore(): string;

  /**
   * Opens the store and applies pending schema migrations (idempotent; every method calls it).
   * Call it at start-up to fail fast on an unreachable or too-new store.
   */
  initialize(): Promise<MigrationResult> {
    if (this.closed) return Promise.reject(this.closedError());
    if (!this.initializing) {
      this.initializing = this.execute(migratePlan(this.dialect, nowSeconds()), "write", false);
      // A failed start (database not up yet) may be retried by the next call.
      this.initializing.catch(() => (this.initializing = undefined));
    }
    return this.initializing;
  }

  override async createSession({ appName, userId, sessionId, state }: CreateSessionRequest): Promise<Session> {
    const id = sessionId?.trim() ? sessionId.trim() : randomUUID();
    const key = checkKey({ appName, userId, sessionId: id });
    // JSON round trip: the stored state is exactly what will be read back, and the input stays the caller's.
    const delta = splitStateDelta(jsonCopy(state ?? {}, "state"));
    return this.execute(createSessionPlan(this.dialect, key, delta, nowSeconds()), "write");
  }

  override async getSession({ appName, userId, sessionId, config }: GetSessionRequest): Promise<Session | undefined> {
    const key = checkKey({ appName, userId, sessionId });
    if (config) return this.execute(getSessionPlan(key, config), "read");
    // The whole history: parse only what was appended since this process last read it.
    const cacheKey = SessionQueueKey.of(key);
    const cached = this.history.get(cacheKey);
    let prefix = cached;
    let tail = await this.execute(historyTailPlan(key, cached?.lastSeq ?? 0, cached?.lastId), "read");
    if (tail.session && !tail.prefixHolds) {
      // Not the history this process read (the session was deleted and re-created): read it all.
      prefix = undefined;
      tail = await this.execute(historyTailPlan(key, 0, undefined), "read");
    }
    if (!tail.session) {
      this.history.delete(cacheKey);
      return undefined;
    }
    const events = this.history.extend(cacheKey, prefix, tail.events, tail.lastSeq, tail.lastId);
    // Over the cache's list: the run that loads the session does not copy its history.
    return sessionOverLog(tail.session, events);
  }

  override async listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    const { appName, userId } = request;
    validateSessionKeyPart(appName, "appName");
    if (userId !== undefined) validateSessionKeyPart(userId, "userId");
    const size = sessionPageSize(request);
    const cursor = decodeSessionPageToken(request.pageToken);
    const limit = size === undefined ? undefined : size + 1;
    return sessionPageFromRows(await this.execute(listSessionsPlan(appName, userId, cursor, limit), "read"), size);
  }

  override async deleteSession({ appName, userId, sessionId }: DeleteSessionRequest): Promise<void> {
    const key = checkKey({ appName, userId, sessionId });
    this.history.delete(SessionQueueKey.of(key));
    await this.execute(deleteSessionPlan(key), "write");
  }

  override async listEvents(request: ListEventsRequest): Promise<ListEventsResponse> {
    const key = checkKey(request);
    const offset = request.pageToken ? Math.max(0, Number.parseInt(request.pageToken, 10) || 0) : 0;
    const limit = request.pageSize && request.pageSize > 0 ? Math.floor(request.pageSize) : undefined;
    const page = await this.execute(listEventsPlan(key, offset, limit), "read");
    return page.more && limit !== undefined
      ? { events: page.events, nextPageToken: String(offset + limit) }
      : { events: page.events };
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([this.initializing, super.close()]);
    this.history.clear();
    await this.closeDriver();
  }

  /**
   * One plan (see session-plans.ts): insert the event, apply the delta, advance the session, or
   * refuse a stale writer. When this process's cache of the session ends right before the new
   * event, the event joins it as a read would give it (the stored JSON, parsed) and that frozen
   * copy is handed back, so the writer's later requests share it and the next read has nothing
   * of its own appends to fetch.
   */
  protected override async storeEvent(
    write: EventWrite,
  ): Promise<number | { lastUpdateTime: number; snapshot: Event }> {
    const key = { appName: write.appName, userId: write.userId, sessionId: write.sessionId };
    // One serialization (eventToJson and a stringify of its copy made three passes and a parse).
    const eventJson = eventToJsonText(write.event);
    const appended = await this.execute(
      appendEventPlan(this.dialect, {
        key,
        seenLastUpdateTime: write.seenLastUpdateTime,
        eventId: write.event.id,
        eventTime: write.event.timestamp,
        eventJson,
        delta: write.delta,
      }),
      "write",
    );
    const cacheKey = SessionQueueKey.of(key);
    const snapshot = this.history.appended(cacheKey, appended.seq, appended.previousId, eventJson);
    return snapshot ? { lastUpdateTime: appended.lastUpdateTime, snapshot } : appended.lastUpdateTime;
  }

  /** Runs a plan after start-up, turning driver failures into SessionStoreError. */
  private async execute<T>(plan: SqlPlan<T>, mode: SqlPlanMode, init = true): Promise<T> {
    if (this.closed) throw this.closedError();
    if (init) await this.initialize();
    try {
      return await this.runPlan(plan, mode);
    } catch (error) {
      if (error instanceof AgentKitError) throw error;
      throw new SessionStoreError(
        "SESSION_STORE_ERROR",
        `The session store ${this.describeStore()} failed: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }

  private closedError(): SessionStoreError {
    return new SessionStoreError(
      "SESSION_STORE_UNAVAILABLE",
      `The session service for ${this.describeStore()} is closed; create a new one.`,
    );
  }
}

/** Core's session key rules (`InvalidSessionKeyError`), then only the three fields. */
function checkKey(key: SessionKeyArgs): SessionKeyArgs {
  validateSessionKey(key);
  return { appName: key.appName, userId: key.userId, sessionId: key.sessionId };
}

function jsonCopy(value: Record<string, unknown>, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SessionError(`${field} must be a plain object.`, { code: "INVALID_SESSION_REQUEST" });
  }
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
