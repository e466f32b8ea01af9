// @agentkit/sessions/sqlite: sessions in a SQLite file (node:sqlite, no extra dependency).
export { SqliteSessionService, sqlitePathFromUri, type SqliteSessionServiceOptions } from "./sqlite-session-service.js";
export { SessionStoreError, type SessionStoreErrorCode } from "../sql/session-store-error.js";
export { SCHEMA_VERSION, type MigrationResult } from "../sql/schema.js";
export { SqliteCredentialStore } from "./sqlite-credential-store.js";
