import type { Collection, Filter, UpdateFilter } from "mongodb";
import { decodeKeys, encodeKey, encodeKeys, toJsonValue } from "./field-names.js";
import { isDuplicateKeyError } from "./mongo-connection.js";

/**
 * An app's or a user's shared state document. `times` holds, per (escaped) key, the session
 * update time of the event that wrote the value; documents written before it existed have no
 * `times`, and their keys count as older than any write.
 */
export interface StateDoc {
  appName: string;
  userId?: string;
  state: Record<string, unknown>;
  times?: Record<string, number>;
  updateTime: number;
}

/**
 * Writes `app:`/`user:` keys (prefixes already removed) as of `time`, the update time of the
 * event that set them. Each key is written only if its stored time is older, so a shared key
 * always holds the value of its latest event, whatever order the writes arrive in: a reader
 * completing a crashed writer's old append, or a slow writer, cannot overwrite a newer value
 * another session stored meanwhile. One `$set` per key: sessions writing different keys never
 * overwrite each other either.
 */
export async function writeSharedState(
  collection: Collection<StateDoc>,
  owner: { appName: string; userId?: string },
  delta: Record<string, unknown>,
  time: number,
): Promise<void> {
  const entries = Object.entries(delta);
  if (entries.length === 0) return;
  const filter = owner as Filter<StateDoc>;
  // Make sure the document exists; two first writers race on its unique key, and both are fine.
  await collection
    .updateOne(filter, { $setOnInsert: { state: {}, times: {} } } as UpdateFilter<StateDoc>, { upsert: true })
    .catch((error: unknown) => {
      if (!isDuplicateKeyError(error)) throw error;
    });
  await Promise.all(
    entries.map(([key, value]) => {
      const path = encodeKey(key);
      const olderOrUnset = { $or: [{ [`times.${path}`]: { $exists: false } }, { [`times.${path}`]: { $lt: time } }] };
      return collection.updateOne(
        { ...filter, ...olderOrUnset } as Filter<StateDoc>,
        {
          $set: { [`state.${path}`]: encodeKeys(toJsonValue(value) ?? null), [`times.${path}`]: time },
          $max: { updateTime: time },
        } as UpdateFilter<StateDoc>,
      );
    }),
  );
}

/** App state and the state of the given users, keys without their prefixes. */
export async function readSharedState(
  appState: Collection<StateDoc>,
  userState: Collection<StateDoc>,
  appName: string,
  userIds: string[],
): Promise<[Record<string, unknown>, Map<string, Record<string, unknown>>]> {
  const [app, users] = await Promise.all([
    appState.findOne({ appName }),
    userIds.length === 1
      ? userState.find({ appName, userId: userIds[0]! }).toArray()
      : userState.find({ appName, userId: { $in: userIds } }).toArray(),
  ]);
  const byUser = new Map<string, Record<string, unknown>>();
  for (const doc of users) byUser.set(doc.userId ?? "", decodeKeys(doc.state ?? {}) as Record<string, unknown>);
  return [decodeKeys(app?.state ?? {}) as Record<string, unknown>, byUser];
}
