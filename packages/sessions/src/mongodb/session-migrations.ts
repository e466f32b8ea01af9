import type { Db, Document } from "mongodb";
import {
  APP_STATE_COLLECTION,
  EVENTS_SUBCOLLECTION_NAME,
  SESSION_COLLECTION_NAME,
  USER_STATE_COLLECTION,
} from "./collection-names.js";
import type { MongoMigration } from "./mongo-schema.js";

/** The schema versions of MongoSessionService's collections (docs/sessions-mongodb.md). */
export const SESSION_MIGRATIONS: readonly MongoMigration[] = [
  {
    version: 1,
    description: "sessions, events, app and user state keyed by app, user and session",
    async up(db: Db) {
      await db
        .collection(SESSION_COLLECTION_NAME)
        .createIndex({ appName: 1, userId: 1, id: 1 }, { unique: true, name: "session_key" });
      await db
        .collection(EVENTS_SUBCOLLECTION_NAME)
        .createIndex({ appName: 1, userId: 1, sessionId: 1, timestamp: 1 }, { name: "session_events" });
      await db.collection(APP_STATE_COLLECTION).createIndex({ appName: 1 }, { unique: true, name: "app_key" });
      await db
        .collection(USER_STATE_COLLECTION)
        .createIndex({ appName: 1, userId: 1 }, { unique: true, name: "user_key" });
    },
  },
  {
    version: 2,
    description: "per-session revision and event sequence numbers (compare-and-set appends)",
    async up(db: Db) {
      const sessions = db.collection(SESSION_COLLECTION_NAME);
      const events = db.collection(EVENTS_SUBCOLLECTION_NAME);
      // Number the events of every session that predates revisions, oldest first.
      for await (const session of sessions.find({ revision: { $exists: false } })) {
        const old = await events
          .find({ appName: session.appName, userId: session.userId, sessionId: session.id, seq: { $exists: false } })
          .sort({ timestamp: 1, _id: 1 })
          .toArray();
        let seq = 0;
        for (const event of old) {
          seq += 1;
          await events.updateOne(
            { _id: event._id },
            { $set: { sessionRef: session._id, seq, updateTime: event.timestamp } },
          );
        }
        const update: Document = { revision: seq };
        if (typeof session.updateTime !== "number") update.updateTime = old.at(-1)?.timestamp ?? 0;
        await sessions.updateOne({ _id: session._id, revision: { $exists: false } }, { $set: update });
      }
      await events.createIndex({ sessionRef: 1, seq: 1 }, { unique: true, name: "session_seq" });
    },
  },
];
