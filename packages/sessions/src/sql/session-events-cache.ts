import { eventFromJson, type Event } from "@agentkit/core";
import { BoundedLru, deepFreeze } from "@agentkit/core/internal";

/** A session's stored events as this process last read them: frozen, shared by every read. */
export interface CachedHistory {
  /**
   * Owned by the cache and only ever appended to (in place), which sessions read over it rely on
   * (`sessionOverLog`); a reader that needs an array of its own copies it.
   */
  readonly events: Event[];
  /**
   * How many of `events` this entry covers. The array is shared with the entry that follows, so
   * a reader holding an older entry (a read that raced another read or an append) sees more.
   */
  readonly count: number;
  /** Sequence number and id of the last event, to check the prefix still holds. */
  readonly lastSeq: number;
  readonly lastId: string | undefined;
}

/**
 * Parsed events per session, so loading a session for a run reads and parses only the events
 * appended since this process last loaded it, not the whole history; this process's own appends
 * go in as they are stored (`appended`), so they are never read back. Events are frozen and
 * shared (reads return a new array of them). Bounded by sessions and by events held, least
 * recently used first out; a stale or evicted entry only costs a full read.
 */
export class SessionEventsCache {
  /** Weighed by the events each entry covers. */
  private readonly entries: BoundedLru<CachedHistory>;

  constructor(maxSessions = 256, maxEvents = 200_000) {
    this.entries = new BoundedLru({ maxEntries: maxSessions, maxWeight: maxEvents });
  }

  get(key: string): CachedHistory | undefined {
    return this.entries.get(key);
  }

  /** Stores `previous` events plus newly read ones (frozen here) and returns the whole history. */
  extend(
    key: string,
    previous: CachedHistory | undefined,
    fresh: Event[],
    lastSeq: number,
    lastId: string | undefined,
  ): readonly Event[] {
    for (const event of fresh) deepFreeze(event);
    const events = previous ? ownedPrefix(previous) : [];
    events.push(...fresh);
    this.entries.set(key, { events, count: events.length, lastSeq, lastId }, events.length);
    return events;
  }

  /**
   * This process stored an event (`eventJson`, the JSON it wrote) as number `seq` of the
   * session, right after the event `previousId`: when the cached history ends there, the event
   * joins it (parsed back, as a read would give it) and the frozen copy the cache now holds is
   * returned (the store hands it to the writer, so its requests share it); otherwise nothing
   * changes and the next read fetches it. A history read
   * empty (a new session) is not started here: many sessions are created, run once and never
   * read again, and their events would only sit in the cache.
   */
  appended(key: string, seq: number, previousId: string | undefined, eventJson: string): Event | undefined {
    const entry = this.entries.peek(key);
    if (entry === undefined || entry.count === 0 || entry.lastSeq !== seq - 1 || entry.lastId !== previousId) {
      return undefined;
    }
    // Parsed only when it joins: most appends are not to a cached history's end.
    const snapshot = deepFreeze(eventFromJson(eventJson));
    const events = ownedPrefix(entry);
    events.push(snapshot);
    this.entries.set(key, { events, count: events.length, lastSeq: seq, lastId: snapshot.id }, events.length);
    return snapshot;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * The entry's events as an array the caller may append to: its own array when nothing was
 * appended past the entry since (the common case, no copy), else a copy of its part of it.
 */
function ownedPrefix(entry: CachedHistory): Event[] {
  return entry.events.length === entry.count ? entry.events : entry.events.slice(0, entry.count);
}
