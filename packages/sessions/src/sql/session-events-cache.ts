import { eventFromJson, type Event } from "@agentkit/core";
import { deepFreeze } from "@agentkit/core/internal";

/** A session's stored events as this process last read them: frozen, shared by every read. */
export interface CachedHistory {
  /** Owned by the cache (appended in place); readers get copies of the array. */
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
  private readonly entries = new Map<string, CachedHistory>();
  private held = 0;

  constructor(
    private readonly maxSessions = 256,
    private readonly maxEvents = 200_000,
  ) {}

  get(key: string): CachedHistory | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
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
    this.replace(key, { events, count: events.length, lastSeq, lastId });
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
    if (!this.holdsUpTo(key, seq - 1, previousId)) return undefined;
    const entry = this.entries.get(key)!;
    // Parsed only when it joins: most appends are not to a cached history's end.
    const snapshot = deepFreeze(eventFromJson(eventJson));
    const events = ownedPrefix(entry);
    events.push(snapshot);
    this.replace(key, { events, count: events.length, lastSeq: seq, lastId: snapshot.id });
    return snapshot;
  }

  /** True when the cached history of `key` is not empty and ends with event number `seq`, whose id is `id`. */
  private holdsUpTo(key: string, seq: number, id: string | undefined): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.count > 0 && entry.lastSeq === seq && entry.lastId === id;
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.held -= entry.count;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  private replace(key: string, entry: CachedHistory): void {
    this.delete(key);
    this.entries.set(key, entry);
    this.held += entry.count;
    this.evict();
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxSessions && this.held <= this.maxEvents) return;
      this.entries.delete(key);
      this.held -= entry.count;
    }
  }
}

/**
 * The entry's events as an array the caller may append to: its own array when nothing was
 * appended past the entry since (the common case, no copy), else a copy of its part of it.
 */
function ownedPrefix(entry: CachedHistory): Event[] {
  return entry.events.length === entry.count ? entry.events : entry.events.slice(0, entry.count);
}
