import type { Event } from "../events/event.js";

/**
 * The store's own frozen copy of each appended event, by the caller's event object: a store that
 * keeps such a copy (the in-memory store, the SQL stores' parsed-events cache) hands it back from
 * `storeEvent`, and requests built later from the caller's event (the contents memo) share it
 * instead of copying the caller's mutable event a second time. It lives as long as the caller
 * keeps its event (a run's session object).
 *
 * Kept in a private field stamped on the caller's event (a base class constructor that returns
 * the object it is given makes the subclass add its field to that object), not in a `WeakMap`:
 * a `WeakMap.set` with a new key cost about 1 µs on Node 24 (the key's identity hash, the table,
 * the collector's ephemeron work), once per appended event; the stamp is a hidden-class
 * transition. A private field is invisible to everything outside this class (keys, symbols,
 * `JSON`, spread, `structuredClone`, `util.inspect`), so the caller's event looks as it did. An
 * object that cannot take new fields (non-extensible) uses the `WeakMap`.
 */
class Stamp {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the object given is what gets the subclass's field
    return target;
  }
}

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
