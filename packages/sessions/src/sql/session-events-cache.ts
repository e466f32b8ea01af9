import type { Event } from "@agentkit/core";
import { deepFreeze } from "@agentkit/core/internal";

/** A session's stored events as this process last read them: frozen, shared by every read. */
export interface CachedHistory {
  /** Owned by the cache (appended in place); readers get copies of the array. */
  readonly events: Event[];
  /** Sequence number and id of the last event, to check the prefix still holds. */
  readonly lastSeq: number;
  readonly lastId: string | undefined;
}

/**
 * Parsed events per session, so loading a session for a run reads and parses only the events
 * appended since this process last loaded it, not the whole history. Events are frozen and
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
    const events = previous ? previous.events : [];
    events.push(...fresh);
    this.delete(key);
    this.entries.set(key, { events, lastSeq, lastId });
    this.held += events.length;
    this.evict();
    return events;
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.held -= entry.events.length;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxSessions && this.held <= this.maxEvents) return;
      this.entries.delete(key);
      this.held -= entry.events.length;
    }
  }
}
