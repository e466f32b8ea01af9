import { randomUUID } from "node:crypto";
import {
  BaseSessionService,
  eventFromJson,
  eventToJsonText,
  nowSeconds,
  SessionAlreadyExistsError,
  SessionError,
  SessionNotFoundError,
  StaleSessionError,
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
  sessionPageFromRows,
  sessionPageSize,
  splitStateDelta,
  validateSessionKey,
  validateSessionKeyPart,
} from "@agentkit/core/internal";
import type { Collection, Db, Document, Filter, ObjectId } from "mongodb";
import {
  APP_STATE_COLLECTION,
  EVENTS_SUBCOLLECTION_NAME,
  SESSION_COLLECTION_NAME,
  USER_STATE_COLLECTION,
} from "./collection-names.js";
import { decodeKeys, encodeKey, encodeKeys, toJsonValue } from "./field-names.js";
import { isDuplicateKeyError, MongoHandle, storeError, type MongoConnectionOptions } from "./mongo-connection.js";
import { applyMigrations } from "./mongo-schema.js";
import { SESSION_MIGRATIONS } from "./session-migrations.js";
import { readSharedState, writeSharedState, type StateDoc } from "./shared-state.js";

export type MongoSessionServiceOptions = MongoConnectionOptions;

/** A session document: only session-scoped state; `revision` counts committed events. */
interface SessionDoc {
  _id: ObjectId;
  appName: string;
  userId: string;
  id: string;
  state: Record<string, unknown>;
  revision: number;
  /** The session's lastUpdateTime (float seconds), strictly increasing per append. */
  updateTime: number;
  createTime: number;
}

/** An event document; `seq` = the session revision it commits, `updateTime` = the session's time after it. */
interface EventDoc {
  sessionRef: ObjectId;
  appName: string;
  userId: string;
  sessionId: string;
  seq: number;
  id: string;
  timestamp: number;
  author: string;
  invocationId?: string;
  updateTime: number;
  event: Record<string, unknown>;
}

/** Smallest step that still changes a float-seconds time near now (see InMemorySessionService). */
const TIME_STEP = 1e-6;

/** `$set` paths for a state delta under `prefix` (keys escaped, values JSON-normal). */
function setPaths(prefix: string, delta: Record<string, unknown>): Document {
  const set: Document = {};
  for (const [k, v] of Object.entries(delta)) set[`${prefix}.${encodeKey(k)}`] = encodeKeys(toJsonValue(v) ?? null);
  return set;
}

/**
 * Sessions in MongoDB: a document per session, its events in their own collection, app and
 * user state in theirs (docs/sessions-mongodb.md). No transactions are needed: the insert of
 * an event document with the next sequence number (unique per session) is the commit point,
 * and the session document follows with a compare-and-set on its revision. A writer whose
 * copy is older than the store, or that loses the race for the next number, gets
 * `StaleSessionError`; a reader that finds an event whose session update never happened (a
 * crashed writer) completes it, so the store always reads back consistent.
 */
export class MongoSessionService extends BaseSessionService {
  private readonly handle: MongoHandle;

  constructor(options: MongoSessionServiceOptions) {
    super();
    this.handle = new MongoHandle(options, "MongoSessionService", async (db) => {
      await applyMigrations(db, "sessions", SESSION_MIGRATIONS);
    });
  }

  /** `new MongoSessionService({ uri })`: the database is the URI's path (default "agentkit"). */
  static fromUri(uri: string): MongoSessionService {
    return new MongoSessionService({ uri });
  }

  /** Connects and applies schema migrations now instead of on first use. */
  async start(): Promise<void> {
    await this.handle.db();
  }

  private async collections(): Promise<{
    sessions: Collection<SessionDoc>;
    events: Collection<EventDoc>;
    appState: Collection<StateDoc>;
    userState: Collection<StateDoc>;
  }> {
    const db: Db = await this.handle.db();
    return {
      sessions: db.collection<SessionDoc>(SESSION_COLLECTION_NAME),
      events: db.collection<EventDoc>(EVENTS_SUBCOLLECTION_NAME),
      appState: db.collection<StateDoc>(APP_STATE_COLLECTION),
      userState: db.collection<StateDoc>(USER_STATE_COLLECTION),
    };
  }

  /** Runs a store operation, turning driver failures into SessionError (typed errors pass through). */
  private async guard<T>(action: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SessionError) throw error;
      throw storeError(action, error);
    }
  }

  override async createSession({ appName, userId, sessionId, state }: CreateSessionRequest): Promise<Session> {
    const id = typeof sessionId === "string" && sessionId.trim() ? sessionId.trim() : randomUUID();
    validateSessionKey({ appName, userId, sessionId: id });
    return this.guard("createSession", async () => {
      const c = await this.collections();
      const split = splitStateDelta(toJsonValue(state ?? {}));
      const now = nowSeconds();
      const doc = {
        appName,
        userId,
        id,
        state: encodeKeys(split.session) as Record<string, unknown>,
        revision: 0,
        updateTime: now,
        createTime: now,
      };
      try {
        await c.sessions.insertOne(doc as SessionDoc);
      } catch (error) {
        if (isDuplicateKeyError(error)) throw new SessionAlreadyExistsError(id, { cause: error });
        throw error;
      }
      await this.writeSharedState(c, appName, userId, split.app, split.user, now);
      const [app, user] = await this.readSharedState(c, appName, [userId]);
      return {
        id,
        appName,
        userId,
        state: mergeState(app, user.get(userId) ?? {}, split.session),
        events: [],
        lastUpdateTime: now,
      };
    });
  }

  override async getSession({ appName, userId, sessionId, config }: GetSessionRequest): Promise<Session | undefined> {
    validateSessionKey({ appName, userId, sessionId });
    return this.guard("getSession", async () => {
      const c = await this.collections();
      for (let attempt = 0; ; attempt++) {
        const doc = await c.sessions.findOne({ appName, userId, id: sessionId });
        if (!doc) return undefined;
        const filter: Filter<EventDoc> = { sessionRef: doc._id, seq: { $lte: doc.revision + 1 } };
        if (config?.afterTimestamp !== undefined) {
          const after =
            config.afterTimestamp instanceof Date ? config.afterTimestamp.getTime() / 1000 : config.afterTimestamp;
          filter.timestamp = { $gte: after };
        }
        const recent = config?.numRecentEvents;
        const limit = recent === undefined ? 0 : Math.max(0, Math.floor(recent));
        const eventsQuery =
          recent === undefined
            ? c.events.find(filter).sort({ seq: 1 }).toArray()
            : limit === 0
              ? c.events.find({ ...filter, seq: doc.revision + 1 }).toArray()
              : c.events
                  .find(filter)
                  .sort({ seq: -1 })
                  .limit(limit + 1)
                  .toArray()
                  .then((docs) => docs.reverse());
        const [eventDocs, [app, users]] = await Promise.all([eventsQuery, this.readSharedState(c, appName, [userId])]);
        // An event past the revision is an append whose session update has not landed (yet, or
        // ever: its writer died). Complete it once and read again; if another writer is already
        // mid-append by then, return the committed view (its event belongs to the next revision).
        const pending = eventDocs.some((e) => e.seq === doc.revision + 1);
        if (pending && attempt === 0) {
          await this.rollForward(c, doc);
          continue;
        }
        const visible = pending ? eventDocs.filter((e) => e.seq <= doc.revision) : eventDocs;
        const committed = limit > 0 && visible.length > limit ? visible.slice(visible.length - limit) : visible;
        return {
          id: doc.id,
          appName: doc.appName,
          userId: doc.userId,
          state: mergeState(app, users.get(userId) ?? {}, decodeKeys(doc.state) as Record<string, unknown>),
          events: limit === 0 && recent !== undefined ? [] : committed.map((e) => this.toEvent(e)),
          lastUpdateTime: doc.updateTime,
        };
      }
    });
  }

  override async listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    const { appName, userId } = request;
    validateSessionKeyPart(appName, "appName");
    if (userId !== undefined) validateSessionKeyPart(userId, "userId");
    const size = sessionPageSize(request);
    const cursor = decodeSessionPageToken(request.pageToken);
    return this.guard("listSessions", async () => {
      const c = await this.collections();
      const filter: Filter<SessionDoc> = userId === undefined ? { appName } : { appName, userId };
      if (cursor) {
        // After the cursor in list order: older, or as old and later by (userId, id).
        const t = cursor.lastUpdateTime;
        filter.$or = [
          { updateTime: { $lt: t } },
          { updateTime: t, userId: { $gt: cursor.userId } },
          { updateTime: t, userId: cursor.userId, id: { $gt: cursor.sessionId } },
        ];
      }
      let find = c.sessions.find(filter).sort({ updateTime: -1, userId: 1, id: 1 });
      if (size !== undefined) find = find.limit(size + 1);
      const page = sessionPageFromRows(
        (await find.toArray()).map((doc) => ({ doc, lastUpdateTime: doc.updateTime, userId: doc.userId, id: doc.id })),
        size,
      );
      const docs = page.sessions.map((row) => row.doc);
      const next = page.nextPageToken ? { nextPageToken: page.nextPageToken } : {};
      if (docs.length === 0) return { sessions: [], ...next };
      const [app, users] = await this.readSharedState(c, appName, [...new Set(docs.map((d) => d.userId))]);
      return {
        ...next,
        sessions: docs.map((doc) => ({
          id: doc.id,
          appName: doc.appName,
          userId: doc.userId,
          state: mergeState(app, users.get(doc.userId) ?? {}, decodeKeys(doc.state) as Record<string, unknown>),
          events: [],
          lastUpdateTime: doc.updateTime,
        })),
      };
    });
  }

  override async deleteSession({ appName, userId, sessionId }: DeleteSessionRequest): Promise<void> {
    validateSessionKey({ appName, userId, sessionId });
    await this.guard("deleteSession", async () => {
      const c = await this.collections();
      // The session document first: once it is gone nobody can append, then its events go.
      await c.sessions.deleteOne({ appName, userId, id: sessionId });
      await c.events.deleteMany({ appName, userId, sessionId });
    });
  }

  override async listEvents(request: ListEventsRequest): Promise<ListEventsResponse> {
    return this.guard("listEvents", async () => {
      const c = await this.collections();
      // Settle a half-finished append first, so pages agree with getSession.
      const session = await this.getSession({ ...request, config: { numRecentEvents: 0 } });
      if (!session) return { events: [] };
      const doc = await c.sessions.findOne({ appName: request.appName, userId: request.userId, id: request.sessionId });
      if (!doc) return { events: [] };
      const start = request.pageToken ? Number.parseInt(request.pageToken, 10) || 0 : 0;
      const size = request.pageSize && request.pageSize > 0 ? Math.floor(request.pageSize) : 0;
      const filter: Filter<EventDoc> = { sessionRef: doc._id, seq: { $gt: start, $lte: doc.revision } };
      const cursor = c.events.find(filter).sort({ seq: 1 });
      const docs = await (size > 0 ? cursor.limit(size) : cursor).toArray();
      const last = docs.at(-1)?.seq ?? start;
      const events = docs.map((e) => this.toEvent(e));
      return size > 0 && last < doc.revision ? { events, nextPageToken: String(last) } : { events };
    });
  }

  /**
   * The event document is the commit point (sequence numbers are unique per session, so one
   * writer wins); the state delta and the session's revision follow (see `commit`), and a reader
   * finding an unfinished append rolls it forward.
   */
  protected override async storeEvent(write: EventWrite): Promise<number> {
    return this.guard("appendEvent", async () => {
      const c = await this.collections();
      const doc = await c.sessions.findOne({ appName: write.appName, userId: write.userId, id: write.sessionId });
      if (!doc) throw new SessionNotFoundError(write);
      if (doc.updateTime > write.seenLastUpdateTime) {
        throw this.staleSession(write.sessionId, doc.updateTime, write.seenLastUpdateTime);
      }
      const { event } = write;
      const seq = doc.revision + 1;
      const updateTime = Math.max(event.timestamp, doc.updateTime + TIME_STEP);
      const eventDoc: EventDoc = {
        sessionRef: doc._id,
        appName: doc.appName,
        userId: doc.userId,
        sessionId: doc.id,
        seq,
        id: event.id,
        timestamp: event.timestamp,
        author: event.author,
        ...(event.invocationId ? { invocationId: event.invocationId } : {}),
        updateTime,
        event: encodeKeys(JSON.parse(eventToJsonText(event))) as Record<string, unknown>,
      };
      try {
        await c.events.insertOne(eventDoc);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        await this.rollForward(c, doc);
        throw new StaleSessionError(write.sessionId, `another writer appended event #${seq} first`, { cause: error });
      }
      await this.commit(c, doc, eventDoc);
      return updateTime;
    });
  }

  /** Applies a stored event's state delta and moves the session document to its revision. */
  private async commit(
    c: Awaited<ReturnType<MongoSessionService["collections"]>>,
    doc: SessionDoc,
    eventDoc: EventDoc,
  ): Promise<void> {
    const stored = decodeKeys(eventDoc.event) as { actions?: { stateDelta?: Record<string, unknown> } };
    const split = splitStateDelta(stored.actions?.stateDelta ?? {});
    await this.writeSharedState(c, doc.appName, doc.userId, split.app, split.user, eventDoc.updateTime);
    const result = await c.sessions.updateOne(
      { _id: doc._id, revision: eventDoc.seq - 1 },
      { $set: { ...setPaths("state", split.session), revision: eventDoc.seq, updateTime: eventDoc.updateTime } },
    );
    if (result.matchedCount === 1) return;
    // Someone completed this append for us (a reader rolling forward), or the session is gone.
    const now = await c.sessions.findOne({ _id: doc._id });
    if (!now) throw new SessionNotFoundError({ appName: doc.appName, userId: doc.userId, sessionId: doc.id });
    if (now.revision < eventDoc.seq)
      throw new SessionError(`Session ${doc.id} did not advance to revision ${eventDoc.seq}`, {
        code: "SESSION_STORE_ERROR",
      });
  }

  /** Completes the append of the event right after the session's revision, if there is one. */
  private async rollForward(
    c: Awaited<ReturnType<MongoSessionService["collections"]>>,
    doc: SessionDoc,
  ): Promise<void> {
    const pending = await c.events.findOne({ sessionRef: doc._id, seq: doc.revision + 1 });
    if (!pending) return;
    await this.commit(c, doc, pending).catch((error: unknown) => {
      if (!(error instanceof SessionNotFoundError)) throw error;
    });
  }

  private async writeSharedState(
    c: Awaited<ReturnType<MongoSessionService["collections"]>>,
    appName: string,
    userId: string,
    app: Record<string, unknown>,
    user: Record<string, unknown>,
    updateTime: number,
  ): Promise<void> {
    await Promise.all([
      writeSharedState(c.appState, { appName }, app, updateTime),
      writeSharedState(c.userState, { appName, userId }, user, updateTime),
    ]);
  }

  private readSharedState(
    c: Awaited<ReturnType<MongoSessionService["collections"]>>,
    appName: string,
    userIds: string[],
  ) {
    return readSharedState(c.appState, c.userState, appName, userIds);
  }

  private toEvent(doc: EventDoc): Event {
    return eventFromJson(decodeKeys(doc.event));
  }

  override async close(): Promise<void> {
    await super.close();
    await this.handle.close();
  }
}
