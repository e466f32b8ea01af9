import type { Event } from "../events/event.js";
import { Stamp } from "./stamp.js";

/**
 * The store's own frozen copy of each appended event, by the caller's event object: a store that
 * keeps such a copy (the in-memory store, the SQL stores' parsed-events cache) hands it back from
 * `storeEvent`, and requests built later from the caller's event (the contents memo) share it
 * instead of copying the caller's mutable event a second time. It lives as long as the caller
 * keeps its event (a run's session object).
 *
 * Kept in a private field stamped on the caller's event (`Stamp`), not in a `WeakMap`: the stamp
 * is a hidden-class transition, once per appended event. An object that cannot take new fields
 * (non-extensible) uses the `WeakMap`.
 */
class StoredSnapshot extends Stamp {
  #snapshot: Event | undefined;

  static remember(event: Event, snapshot: Event): void {
    if (#snapshot in event) (event as StoredSnapshot).#snapshot = snapshot;
    else if (Object.isExtensible(event)) (new StoredSnapshot(event) as StoredSnapshot).#snapshot = snapshot;
    else fallback.set(event, snapshot);
  }

  static of(event: Event): Event | undefined {
    return #snapshot in event ? (event as StoredSnapshot).#snapshot : fallback.get(event);
  }
}

/** Snapshots of events that could not take the field (non-extensible ones). */
const fallback = new WeakMap<Event, Event>();

export function rememberStoredSnapshot(event: Event, snapshot: Event): void {
  StoredSnapshot.remember(event, snapshot);
}

/** The event as its store keeps it (frozen), when the store handed one back. */
export function storedSnapshotOf(event: Event): Event | undefined {
  return StoredSnapshot.of(event);
}
