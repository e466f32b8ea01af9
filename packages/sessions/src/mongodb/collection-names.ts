/**
 * Collection names of the MongoDB (document-database) backend. The spec names the app-state and
 * events collections APP_STATE_COLLECTION and EVENTS_SUBCOLLECTION_NAME; the values follow the
 * reference Firestore layout so data moved between document stores keeps its names.
 */
export const SESSION_COLLECTION_NAME = "sessions";
/** Events, one document each, in their own collection. */
export const EVENTS_SUBCOLLECTION_NAME = "user-event";
/** One document per app: the `app:` state shared by every user of the app. */
export const APP_STATE_COLLECTION = "app-state";
/** One document per (app, user): the `user:` state shared by that user's sessions. */
export const USER_STATE_COLLECTION = "user-state";
/** MongoMemoryService's remembered events. */
export const MEMORY_COLLECTION = "memory";
/** One document per component (`_id: "sessions"`, `_id: "memory"`) holding its schema version. */
export const SCHEMA_COLLECTION = "agentkit-schema";
