import {
  SessionAlreadyExistsError,
  SessionNotFoundError,
  StaleSessionError,
  type Event,
  type GetSessionConfig,
  type Session,
} from "@agentkit/core";
import type { SessionListCursor } from "@agentkit/core/internal";
import { EVENT_FORMAT_VERSION, TABLES } from "./schema.js";
import { parseState, rowToEvent, rowToSession } from "./session-rows.js";
import { sql, type SqlDialect, type SqlPlan, type SqlRow } from "./sql-plan.js";

// The units of work of SqlSessionService. Each runs inside one transaction of its driver.

export interface SessionKeyArgs {
  appName: string;
  userId: string;
  sessionId: string;
}

/** A state delta already split by scope (prefixes stripped, temp keys gone). */
export interface ScopedDelta {
  app: Record<string, unknown>;
  user: Record<string, unknown>;
  session: Record<string, unknown>;
}

/**
 * The smallest step that still changes a float-seconds timestamp near the current epoch, so a
 * session's last_update_time strictly increases with every append and a second holder of the
 * previous version is always detected.
 */
const TIME_STEP = 1e-6;

const SESSION_COLUMNS = `s.app_name AS app_name, s.user_id AS user_id, s.id AS id, s.state AS state,
  s.last_update_time AS last_update_time, a.state AS app_state, u.state AS user_state`;
const SESSION_FROM = `${TABLES.sessions} s
  LEFT JOIN ${TABLES.appStates} a ON a.app_name = s.app_name
  LEFT JOIN ${TABLES.userStates} u ON u.app_name = s.app_name AND u.user_id = s.user_id`;
const EVENT_COLUMNS = "id, event_json, format_version";
const EVENT_KEY = "app_name = ? AND user_id = ? AND session_id = ?";
/** A column of the last event (by seq) of the session row `s`, as a subquery of a statement over it. */
const lastEventColumn = (column: "seq" | "id") =>
  `(SELECT e.${column} FROM ${TABLES.events} e WHERE e.app_name = s.app_name AND e.user_id = s.user_id ` +
  "AND e.session_id = s.id ORDER BY e.seq DESC LIMIT 1)";

function* readSessionRow(key: SessionKeyArgs): SqlPlan<SqlRow | undefined> {
  const { rows } = yield sql(
    `SELECT ${SESSION_COLUMNS} FROM ${SESSION_FROM} WHERE s.app_name = ? AND s.user_id = ? AND s.id = ?`,
    key.appName,
    key.userId,
    key.sessionId,
  );
  return rows[0];
}

/** Merges keys into a shared (app or user) state row, creating it when missing; the row stays locked until commit. */
function* mergeSharedState(
  dialect: SqlDialect,
  table: string,
  keyColumns: string[],
  keyValues: string[],
  delta: Record<string, unknown>,
): SqlPlan<void> {
  if (Object.keys(delta).length === 0) return;
  const where = keyColumns.map((c) => `${c} = ?`).join(" AND ");
  yield sql(
    `INSERT INTO ${table} (${keyColumns.join(", ")}, state) VALUES (${keyColumns.map(() => "?").join(", ")}, '{}') ` +
      `ON CONFLICT DO NOTHING`,
    ...keyValues,
  );
  const { rows } = yield sql(`SELECT state FROM ${table} WHERE ${where}${dialect.forUpdate}`, ...keyValues);
  const state = { ...parseState(rows[0]?.state, `${table} row`), ...delta };
  yield sql(`UPDATE ${table} SET state = ? WHERE ${where}`, JSON.stringify(state), ...keyValues);
}

function* mergeAppAndUserState(
  dialect: SqlDialect,
  appName: string,
  userId: string,
  delta: ScopedDelta,
): SqlPlan<void> {
  // Always app before user (and the session row before both): one lock order, no deadlocks.
  yield* mergeSharedState(dialect, TABLES.appStates, ["app_name"], [appName], delta.app);
  yield* mergeSharedState(dialect, TABLES.userStates, ["app_name", "user_id"], [appName, userId], delta.user);
}

export function* createSessionPlan(
  dialect: SqlDialect,
  key: SessionKeyArgs,
  delta: ScopedDelta,
  now: number,
): SqlPlan<Session> {
  const inserted = yield sql(
    `INSERT INTO ${TABLES.sessions} (app_name, user_id, id, state, create_time, last_update_time) VALUES (?, ?, ?, ` +
      `?, ?, ?) ON CONFLICT DO NOTHING`,
    key.appName,
    key.userId,
    key.sessionId,
    JSON.stringify(delta.session),
    now,
    now,
  );
  if (inserted.changes === 0) throw new SessionAlreadyExistsError(key.sessionId);
  yield* mergeAppAndUserState(dialect, key.appName, key.userId, delta);
  const row = yield* readSessionRow(key);
  if (!row) throw new SessionNotFoundError(key);
  return rowToSession(row, []);
}

export function* getSessionPlan(
  key: SessionKeyArgs,
  config: GetSessionConfig | undefined,
): SqlPlan<Session | undefined> {
  const row = yield* readSessionRow(key);
  if (!row) return undefined;
  const where = [EVENT_KEY];
  const params: (string | number)[] = [key.appName, key.userId, key.sessionId];
  if (config?.afterTimestamp !== undefined) {
    const after =
      config.afterTimestamp instanceof Date ? config.afterTimestamp.getTime() / 1000 : config.afterTimestamp;
    where.push("event_time >= ?");
    params.push(after);
  }
  const recent = config?.numRecentEvents;
  let events: Event[];
  if (recent !== undefined && Number.isFinite(recent)) {
    const n = Math.max(0, Math.floor(recent));
    if (n === 0) return rowToSession(row, []);
    const { rows } = yield sql(
      `SELECT ${EVENT_COLUMNS} FROM ${TABLES.events} WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT ?`,
      ...params,
      n,
    );
    events = rows.map(rowToEvent).reverse();
  } else {
    const { rows } = yield sql(
      `SELECT ${EVENT_COLUMNS} FROM ${TABLES.events} WHERE ${where.join(" AND ")} ORDER BY seq`,
      ...params,
    );
    events = rows.map(rowToEvent);
  }
  return rowToSession(row, events);
}

/** The tail of a session's history after a known prefix (see `SessionEventsCache`). */
export interface HistoryTail {
  /** The session row read in the same plan, or undefined when the session is gone. */
  session: Session | undefined;
  /** False when the known prefix is no longer the start of the stored history (read it all). */
  prefixHolds: boolean;
  /** Events after the prefix, in order, with their sequence numbers. */
  events: Event[];
  lastSeq: number;
  lastId: string | undefined;
}

/**
 * The session and only the events stored after event `#afterSeq` (whose id must still be
 * `afterId`: a deleted and re-created session may reuse sequence numbers), so a reader that
 * already holds the first events parses only what was appended since.
 */
export function* historyTailPlan(
  key: SessionKeyArgs,
  afterSeq: number,
  afterId: string | undefined,
): SqlPlan<HistoryTail> {
  const row = yield* readSessionRow(key);
  if (!row) return { session: undefined, prefixHolds: false, events: [], lastSeq: 0, lastId: undefined };
  if (afterSeq > 0) {
    const { rows } = yield sql(
      `SELECT id FROM ${TABLES.events} WHERE ${EVENT_KEY} AND seq = ?`,
      key.appName,
      key.userId,
      key.sessionId,
      afterSeq,
    );
    if (rows[0]?.id !== afterId)
      return { session: rowToSession(row, []), prefixHolds: false, events: [], lastSeq: 0, lastId: undefined };
  }
  const { rows } = yield sql(
    `SELECT seq, ${EVENT_COLUMNS} FROM ${TABLES.events} WHERE ${EVENT_KEY} AND seq > ? ORDER BY seq`,
    key.appName,
    key.userId,
    key.sessionId,
    afterSeq,
  );
  const last = rows[rows.length - 1];
  return {
    session: rowToSession(row, []),
    prefixHolds: true,
    events: rows.map(rowToEvent),
    lastSeq: last ? Number(last.seq) : afterSeq,
    lastId: last ? String(last.id) : afterId,
  };
}

/**
 * Sessions in list order (most recently updated first, then user id, then id), those after
 * `cursor` only, at most `limit` rows (a page plus one, to know whether another follows).
 */
export function* listSessionsPlan(
  appName: string,
  userId: string | undefined,
  cursor: SessionListCursor | undefined,
  limit: number | undefined,
): SqlPlan<Session[]> {
  const where = ["s.app_name = ?"];
  const params: (string | number)[] = [appName];
  if (userId !== undefined) {
    where.push("s.user_id = ?");
    params.push(userId);
  }
  if (cursor) {
    where.push(
      "(s.last_update_time < ? OR (s.last_update_time = ? AND (s.user_id > ? OR (s.user_id = ? AND s.id > ?))))",
    );
    const { lastUpdateTime: t, userId: u, sessionId: id } = cursor;
    params.push(t, t, u, u, id);
  }
  // The cursor compares with the collation ORDER BY uses, so pages never skip or repeat a row.
  let text = `SELECT ${SESSION_COLUMNS} FROM ${SESSION_FROM} WHERE ${where.join(" AND ")} ORDER BY s.last_update_time DESC, s.user_id, s.id`;
  if (limit !== undefined) {
    text += " LIMIT ?";
    params.push(limit);
  }
  const { rows } = yield sql(text, ...params);
  return rows.map((row) => rowToSession(row, []));
}

/** One page of events in order; fetches one extra row to know whether another page follows. */
export function* listEventsPlan(
  key: SessionKeyArgs,
  offset: number,
  limit: number | undefined,
): SqlPlan<{ events: Event[]; more: boolean }> {
  const base = `SELECT ${EVENT_COLUMNS} FROM ${TABLES.events} WHERE ${EVENT_KEY} ORDER BY seq`;
  const args = [key.appName, key.userId, key.sessionId];
  if (limit === undefined) {
    // No page size: everything from the offset (OFFSET without LIMIT is not portable SQL).
    const { rows } = yield sql(base, ...args);
    return { events: rows.slice(offset).map(rowToEvent), more: false };
  }
  const { rows } = yield sql(`${base} LIMIT ? OFFSET ?`, ...args, limit + 1, offset);
  return { events: rows.slice(0, limit).map(rowToEvent), more: rows.length > limit };
}

export function* deleteSessionPlan(key: SessionKeyArgs): SqlPlan<void> {
  // The session row first: on PostgreSQL this waits for an append holding its lock, so the
  // events statement then sees that append's event too and no orphan row is left behind.
  yield sql(
    `DELETE FROM ${TABLES.sessions} WHERE app_name = ? AND user_id = ? AND id = ?`,
    key.appName,
    key.userId,
    key.sessionId,
  );
  yield sql(`DELETE FROM ${TABLES.events} WHERE ${EVENT_KEY}`, key.appName, key.userId, key.sessionId);
}

/** What `appendEventPlan` stored: the session's new time, the event's sequence number, the id before it. */
export interface AppendedEvent {
  lastUpdateTime: number;
  seq: number;
  previousId: string | undefined;
}

export interface AppendArgs {
  key: SessionKeyArgs;
  /** The lastUpdateTime of the writer's copy of the session. */
  seenLastUpdateTime: number;
  eventId: string;
  eventTime: number;
  /** The event as stored: core's eventToJson with temp keys removed from its delta. */
  eventJson: string;
  delta: ScopedDelta;
}

/**
 * Appends one event with its state delta, atomically. The session row is locked first (FOR
 * UPDATE on PostgreSQL; SQLite's BEGIN IMMEDIATE holds the write lock), so two writers on one
 * session run one after the other and the second sees the first's last_update_time: a writer
 * whose copy is older than the store gets StaleSessionError and nothing is written.
 * Returns the session's new last_update_time and where the event went: its sequence number and
 * the id of the event before it (undefined for the first), so a reader's cache of the history can
 * take the event without reading it back.
 */
export function* appendEventPlan(dialect: SqlDialect, args: AppendArgs): SqlPlan<AppendedEvent> {
  const { key } = args;
  // One statement locks the session row and reads where its history ends (one round trip, not
  // two). On PostgreSQL the last-event subqueries read the statement's snapshot, which may predate
  // an append that committed while this one waited for the lock; the row itself is read at its
  // newest version, so such an append always shows as a later last_update_time and the stale
  // check below refuses before the subqueries' answer is used.
  const { rows } = yield sql(
    `SELECT s.state AS state, s.last_update_time AS last_update_time, ` +
      `${lastEventColumn("seq")} AS last_seq, ${lastEventColumn("id")} AS last_id ` +
      `FROM ${TABLES.sessions} s WHERE s.app_name = ? AND s.user_id = ? AND s.id = ?${dialect.forUpdate}`,
    key.appName,
    key.userId,
    key.sessionId,
  );
  const row = rows[0];
  if (!row) throw new SessionNotFoundError(key);
  const stored = Number(row.last_update_time);
  if (stored > args.seenLastUpdateTime) {
    throw new StaleSessionError(
      key.sessionId,
      `the stored session was last updated at ${stored}, after this copy (${args.seenLastUpdateTime})`,
    );
  }
  const previous = row.last_seq == null ? undefined : { seq: row.last_seq, id: row.last_id };
  const seq = Number(previous?.seq ?? 0) + 1;
  yield sql(
    `INSERT INTO ${TABLES.events} (app_name, user_id, session_id, seq, id, event_time, event_json, format_version) ` +
      `VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    key.appName,
    key.userId,
    key.sessionId,
    seq,
    args.eventId,
    args.eventTime,
    args.eventJson,
    EVENT_FORMAT_VERSION,
  );
  const lastUpdateTime = Math.max(args.eventTime, stored + TIME_STEP);
  const sessionState =
    Object.keys(args.delta.session).length > 0
      ? { ...parseState(row.state, "session state"), ...args.delta.session }
      : undefined;
  yield sessionState
    ? sql(
        `UPDATE ${TABLES.sessions} SET state = ?, last_update_time = ? WHERE app_name = ? AND user_id = ? AND id = ?`,
        JSON.stringify(sessionState),
        lastUpdateTime,
        key.appName,
        key.userId,
        key.sessionId,
      )
    : sql(
        `UPDATE ${TABLES.sessions} SET last_update_time = ? WHERE app_name = ? AND user_id = ? AND id = ?`,
        lastUpdateTime,
        key.appName,
        key.userId,
        key.sessionId,
      );
  yield* mergeAppAndUserState(dialect, key.appName, key.userId, args.delta);
  return { lastUpdateTime, seq, previousId: previous ? String(previous.id) : undefined };
}
