import { SessionError } from "../errors/session-errors.js";
import type { ListSessionsRequest } from "./base-session-service.js";
import type { Session } from "./session.js";

/** What the list order reads of a session. */
export type SessionSortKey = Pick<Session, "lastUpdateTime" | "userId" | "id">;

/** One page of sessions (or of backend rows shaped like them). */
export interface SessionPage<T extends SessionSortKey> {
  sessions: T[];
  nextPageToken?: string;
}

/**
 * Where a page of `listSessions` ends: the last listed session's sort key. Sessions are listed
 * most recently updated first, ties by user id then session id, so a page is the sessions that
 * sort after the cursor; this stays correct while other sessions are created or deleted.
 */
export interface SessionListCursor {
  lastUpdateTime: number;
  userId: string;
  sessionId: string;
}

/** The largest page a backend returns; a larger `pageSize` is clamped to it. */
export const MAX_SESSION_PAGE_SIZE = 1000;

/** `pageSize` checked (a positive integer, clamped to `MAX_SESSION_PAGE_SIZE`), or undefined for "everything". */
export function sessionPageSize(request: ListSessionsRequest): number | undefined {
  const size = request.pageSize;
  if (size === undefined) return undefined;
  if (!Number.isInteger(size) || size < 1) {
    throw new SessionError(`listSessions: pageSize must be a positive integer, got ${String(size)}`, {
      code: "INVALID_SESSION_REQUEST",
    });
  }
  return Math.min(size, MAX_SESSION_PAGE_SIZE);
}

/** The cursor a `pageToken` carries (undefined for the first page); a token not made here is refused. */
export function decodeSessionPageToken(token: string | undefined): SessionListCursor | undefined {
  if (token === undefined || token === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 3 &&
    typeof parsed[0] === "number" &&
    Number.isFinite(parsed[0]) &&
    typeof parsed[1] === "string" &&
    typeof parsed[2] === "string"
  ) {
    return { lastUpdateTime: parsed[0], userId: parsed[1], sessionId: parsed[2] };
  }
  throw new SessionError("listSessions: pageToken is not a token returned by listSessions", {
    code: "INVALID_SESSION_REQUEST",
  });
}

/** The opaque token of the page after `session` (base64url JSON; JSON round-trips doubles exactly). */
export function encodeSessionPageToken(session: SessionSortKey): string {
  return Buffer.from(JSON.stringify([session.lastUpdateTime, session.userId, session.id]), "utf8").toString(
    "base64url",
  );
}

/** The list order: most recently updated first, then user id, then session id (code-unit order). */
export function compareSessionsForList(a: SessionSortKey, b: SessionSortKey): number {
  if (a.lastUpdateTime !== b.lastUpdateTime) return b.lastUpdateTime - a.lastUpdateTime;
  if (a.userId !== b.userId) return a.userId < b.userId ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/**
 * Orders and pages sessions held in memory (the in-memory and managed backends; SQL and MongoDB
 * do the same in the query). Without `pageSize` every session is returned, in list order.
 */
export function pageSessions<T extends SessionSortKey>(sessions: T[], request: ListSessionsRequest): SessionPage<T> {
  const size = sessionPageSize(request);
  const cursor = decodeSessionPageToken(request.pageToken);
  let sorted = sessions.slice().sort(compareSessionsForList);
  if (cursor) {
    const after = { lastUpdateTime: cursor.lastUpdateTime, userId: cursor.userId, id: cursor.sessionId };
    sorted = sorted.filter((s) => compareSessionsForList(s, after) > 0);
  }
  return sessionPageFromRows(sorted, size);
}

/** The response for sorted rows read past the cursor: the first `size`, and a token when more follow. */
export function sessionPageFromRows<T extends SessionSortKey>(rows: T[], size: number | undefined): SessionPage<T> {
  if (size === undefined || rows.length <= size) return { sessions: rows };
  const page = rows.slice(0, size);
  return { sessions: page, nextPageToken: encodeSessionPageToken(page[page.length - 1]!) };
}
