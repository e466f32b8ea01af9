import { SessionError } from "@agentkit/core";
import type { Db } from "mongodb";
import { SCHEMA_COLLECTION } from "./collection-names.js";

/** One step of a component's schema; `up` must be idempotent (two replicas may start at once). */
export interface MongoMigration {
  version: number;
  description: string;
  up(db: Db): Promise<void>;
}

interface SchemaDoc {
  _id: string;
  version: number;
  updatedAt: Date;
}

/**
 * Brings `component`'s collections to the newest version: reads the version document, runs
 * every newer migration in order and records each. A store written by a newer agentkit (a
 * version this code does not know) is refused rather than misread.
 */
export async function applyMigrations(
  db: Db,
  component: string,
  migrations: readonly MongoMigration[],
): Promise<number> {
  const schema = db.collection<SchemaDoc>(SCHEMA_COLLECTION);
  const current = (await schema.findOne({ _id: component }))?.version ?? 0;
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  if (current > latest) {
    throw new SessionError(
      `The MongoDB ${component} store is at schema version ${current}, newer than this agentkit supports ` +
        `(${latest}). Upgrade @agentkit/sessions.`,
      { code: "SESSION_SCHEMA_TOO_NEW" },
    );
  }
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (migration.version <= current) continue;
    await migration.up(db);
    // $max: a replica that finished a later step first is never moved back.
    await schema.updateOne(
      { _id: component },
      { $max: { version: migration.version }, $set: { updatedAt: new Date() } },
      { upsert: true },
    );
  }
  return latest;
}
