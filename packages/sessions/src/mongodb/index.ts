// MongoDB backend of @agentkit/sessions (`@agentkit/sessions/mongodb`); needs the `mongodb` driver.
export { MongoSessionService, type MongoSessionServiceOptions } from "./mongo-session-service.js";
export { MongoMemoryService, type MongoMemoryServiceOptions } from "./mongo-memory-service.js";
export { DEFAULT_DB_NAME, type MongoConnectionOptions } from "./mongo-connection.js";
export {
  APP_STATE_COLLECTION,
  EVENTS_SUBCOLLECTION_NAME,
  MEMORY_COLLECTION,
  SCHEMA_COLLECTION,
  SESSION_COLLECTION_NAME,
  USER_STATE_COLLECTION,
} from "./collection-names.js";
export { SESSION_MIGRATIONS } from "./session-migrations.js";
export type { MongoMigration } from "./mongo-schema.js";
export { MongoCredentialStore } from "./mongo-credential-store.js";
