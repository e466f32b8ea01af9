import { sql, type SqlDialect, type SqlPlan } from "./sql-plan.js";
import { SessionStoreError } from "./session-store-error.js";

/** Version of the event JSON kept in `agentkit_events.event_json` (core's `eventToJson`). */
export const EVENT_FORMAT_VERSION = 1;

/** Table names: prefixed, because a PostgreSQL database is often shared with other software. */
export const TABLES = {
  version: "agentkit_schema_version",
  sessions: "agentkit_sessions",
  events: "agentkit_events",
  appStates: "agentkit_app_states",
  userStates: "agentkit_user_states",
} as const;

/** One schema step. The DDL is portable: SQLite maps DOUBLE PRECISION to REAL and TEXT/INTEGER as written. */
export interface Migration {
  version: number;
  description: string;
  statements: string[];
}

/**
 * Every schema version in order. Never edit a released step: add the next one. A store opens
 * by applying, in one transaction, every step above its recorded version.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "sessions, events, app and user state",
    statements: [
      `CREATE TABLE ${TABLES.sessions} (
        app_name TEXT NOT NULL, user_id TEXT NOT NULL, id TEXT NOT NULL,
        state TEXT NOT NULL, create_time DOUBLE PRECISION NOT NULL, last_update_time DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (app_name, user_id, id))`,
      `CREATE TABLE ${TABLES.events} (
        app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL,
        id TEXT NOT NULL, event_time DOUBLE PRECISION NOT NULL, event_json TEXT NOT NULL,
        PRIMARY KEY (app_name, user_id, session_id, seq))`,
      `CREATE TABLE ${TABLES.appStates} (app_name TEXT NOT NULL PRIMARY KEY, state TEXT NOT NULL)`,
      `CREATE TABLE ${TABLES.userStates} (
        app_name TEXT NOT NULL, user_id TEXT NOT NULL, state TEXT NOT NULL, PRIMARY KEY (app_name, user_id))`,
    ],
  },
  {
    version: 2,
    description: "event format version per row; index for afterTimestamp reads",
    statements: [
      // Rows written by v1 hold format 1, the only format there was.
      `ALTER TABLE ${TABLES.events} ADD COLUMN format_version INTEGER NOT NULL DEFAULT 1`,
      `CREATE INDEX agentkit_events_by_time ON ${TABLES.events} (app_name, user_id, session_id, event_time)`,
    ],
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** What opening a store did. */
export interface MigrationResult {
  from: number;
  to: number;
}

/** Brings the store up to `SCHEMA_VERSION`; refuses a store written by a newer agentkit. */
export function* migratePlan(
  dialect: SqlDialect,
  now: number,
  migrations: readonly Migration[] = MIGRATIONS,
): SqlPlan<MigrationResult> {
  if (dialect.migrationLock) yield dialect.migrationLock;
  yield sql(
    `CREATE TABLE IF NOT EXISTS ${TABLES.version} (version INTEGER NOT NULL PRIMARY KEY, applied_at DOUBLE PRECISION ` +
      `NOT NULL)`,
  );
  const { rows } = yield sql(`SELECT MAX(version) AS version FROM ${TABLES.version}`);
  const from = Number(rows[0]?.version ?? 0);
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if (from > latest) {
    throw new SessionStoreError(
      "SESSION_STORE_TOO_NEW",
      `The session store has schema version ${from}, but this agentkit knows versions up to ${latest}. Upgrade ` +
        `@agentkit/sessions (never open a store with an older release).`,
    );
  }
  for (const migration of migrations) {
    if (migration.version <= from) continue;
    for (const text of migration.statements) yield sql(text);
    yield sql(`INSERT INTO ${TABLES.version} (version, applied_at) VALUES (?, ?)`, migration.version, now);
  }
  return { from, to: Math.max(from, latest) };
}
