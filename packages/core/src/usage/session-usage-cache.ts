import type { Event } from "../events/event.js";
import type { PriceTable } from "./price-table.js";
import { UsageWalk } from "./usage-walk.js";
import { emptyRollup, type UsageRollup } from "./usage-rollup.js";

/** A walk kept between invocations: it has read the first `seen` events of a history. */
interface KeptWalk {
  walk: UsageWalk;
  seen: number;
}

/**
 * The walks of sessions' usage kept by a runner between invocations, so that the usage before a
 * run costs the events appended since the last run instead of the whole history. Each walk is
 * keyed by the last event it read: the stored, frozen event objects that the session services
 * hand out again on the next read (the in-memory store, the SQL stores' events cache), so a walk
 * lives exactly as long as its session's events do and needs no bound of its own. A history that
 * does not continue the kept one (other event objects: a re-read from the database, a new
 * session) or an event of an invocation already sealed (a resumed older run) is walked again
 * from the start: a miss costs time, never a different result.
 */
export class SessionUsageCache {
  private walks = new WeakMap<Event, KeptWalk>();

  /**
   * `sessionUsageFromEvents(events.slice(0, count), prices).total`, reading only what was added
   * since the walk kept for this history.
   */
  totalBefore(events: readonly Event[], count: number, prices: PriceTable): UsageRollup {
    // A new session's first run (nothing before it): no walk to make or keep.
    if (count === 0) return prices.priceRollup(emptyRollup());
    let kept = this.take(events, count);
    if (kept) {
      for (let i = kept.seen; i < count && kept; i++) if (!kept.walk.add(events[i]!)) kept = undefined;
    }
    if (!kept) {
      kept = { walk: new UsageWalk(), seen: 0 };
      for (let i = 0; i < count; i++) kept.walk.add(events[i]!);
    }
    kept.seen = count;
    const total = prices.priceRollup(kept.walk.total());
    kept.walk.seal();
    if (count > 0) this.walks.set(events[count - 1]!, kept);
    return total;
  }

  clear(): void {
    this.walks = new WeakMap();
  }

  /** Removes and returns the walk of the longest prefix of these events that has one. */
  private take(events: readonly Event[], count: number): KeptWalk | undefined {
    for (let i = count - 1; i >= 0; i--) {
      const kept = this.walks.get(events[i]!);
      if (!kept) continue;
      // The walk is extended in place: no other history may find it at its old end.
      this.walks.delete(events[i]!);
      return kept.seen === i + 1 ? kept : undefined;
    }
    return undefined;
  }
}
