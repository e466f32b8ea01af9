// @agentkit/sessions/postgres: sessions in PostgreSQL (needs the `pg` package).
export { PostgresSessionService, type PostgresSessionServiceOptions } from "./postgres-session-service.js";
export { SessionStoreError, type SessionStoreErrorCode } from "../sql/session-store-error.js";
export { SCHEMA_VERSION, type MigrationResult } from "../sql/schema.js";
export { PostgresCredentialStore, type PostgresCredentialStoreOptions } from "./postgres-credential-store.js";
