import type { Event } from "../events/event.js";

/**
 * The store's own frozen copy of each appended event, by the caller's event object: a store that
 * keeps such a copy (the in-memory store, the SQL stores' parsed-events cache) hands it back from
 * `storeEvent`, and requests built later from the caller's event (the contents memo) share it
 * instead of copying the caller's mutable event a second time. A WeakMap: an entry lives only
 * as long as the caller keeps its event (a run's session object).
 */
const snapshots = new WeakMap<Event, Event>();

export function rememberStoredSnapshot(event: Event, snapshot: Event): void {
  snapshots.set(event, snapshot);
}

/** The event as its store keeps it (frozen), when the store handed one back. */
export function storedSnapshotOf(event: Event): Event | undefined {
  return snapshots.get(event);
}
