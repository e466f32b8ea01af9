// Long compacted sessions: the compactions are applied and the next window found without
// trying every compaction against every event or reading the whole history each run. The
// results must be exactly what the straightforward forms (kept here) gave, on random histories
// with nested, overlapping, equal and open-ended ranges.
import { describe, expect, it } from "@jest/globals";
import { SeededRandom } from "@agentkit/test-support/seeded-random";
import { createEvent, type Event, type EventsCompactionConfig } from "../src/index.js";
import { compactedEvents, withSummaries } from "../src/flows/apply-compactions.js";
import { selectCompactionWindow } from "../src/internal.js";
import { countingReads, summaryEvent } from "./compaction-fixtures.js";

/**
 * Compactions applied in their straightforward form: each compaction tried against each event (a
 * regular event is covered only by a compaction after it), and before each kept event every
 * summary up to the last one that must precede it (its range ends earlier, or its compaction
 * event came earlier).
 */
function referenceApply(events: Event[], agentName: string): Event[] {
  const compactions = events.filter((e) => e.actions.compaction);
  const position = new Map(events.map((e, i) => [e, i]));
  const covers = (c: Event, e: Event) => {
    if (c === e) return false;
    const { startTimestamp, endTimestamp } = c.actions.compaction!;
    const start = startTimestamp ?? Number.NEGATIVE_INFINITY;
    const inner = e.actions.compaction;
    if (inner) return (inner.startTimestamp ?? Number.NEGATIVE_INFINITY) >= start && inner.endTimestamp <= endTimestamp;
    return position.get(c)! > position.get(e)! && e.timestamp >= start && e.timestamp <= endTimestamp;
  };
  const kept = events.filter((e) => !compactions.some((c) => covers(c, e)));
  const summaries = kept
    .filter((e) => e.actions.compaction)
    .map((e) => ({ id: e.id, timestamp: e.actions.compaction!.endTimestamp, author: agentName, at: position.get(e)! }))
    .sort((a, b) => a.timestamp - b.timestamp);
  const out: { id: string; timestamp: number; author: string }[] = [];
  let emitted = 0;
  for (const event of kept) {
    if (event.actions.compaction) continue;
    let last = -1;
    summaries.forEach((s, i) => {
      if (s.timestamp < event.timestamp || s.at < position.get(event)!) last = i;
    });
    for (; emitted <= last; emitted++) out.push(summaries[emitted]!);
    out.push({ id: event.id, timestamp: event.timestamp, author: event.author });
  }
  for (; emitted < summaries.length; emitted++) out.push(summaries[emitted]!);
  return out.map(({ id, timestamp, author }) => ({ id, timestamp, author })) as unknown as Event[];
}

/** `selectCompactionWindow` as it was: every run read the whole history. */
function referenceWindow(events: readonly Event[], config: EventsCompactionConfig): Event[] {
  const unique = (values: string[]) => [...new Set(values)];
  let lastCompaction = -1;
  events.forEach((e, i) => {
    if (e.actions.compaction) lastCompaction = i;
  });
  let over = false;
  if (config.tokenThreshold !== undefined)
    for (let i = events.length - 1; i > lastCompaction; i--) {
      const prompt = events[i]!.usageMetadata?.promptTokenCount;
      if (prompt !== undefined) {
        over = prompt >= config.tokenThreshold;
        break;
      }
    }
  const interval = over ? 1 : (config.compactionInterval ?? Number.POSITIVE_INFINITY);
  const newIds = unique(
    events
      .slice(lastCompaction + 1)
      .filter((e) => !e.actions.compaction)
      .map((e) => e.invocationId),
  );
  if (newIds.length < interval) return [];
  if (config.eventRetentionSize !== undefined) {
    const previousEnd =
      lastCompaction >= 0 ? events[lastCompaction]!.actions.compaction!.endTimestamp : Number.NEGATIVE_INFINITY;
    const pending = events.filter((e) => !e.actions.compaction && e.timestamp > previousEnd);
    let cut = Math.max(0, pending.length - config.eventRetentionSize);
    while (cut > 0 && cut < pending.length) {
      const first = pending[cut]!;
      const splitsPair = (first.content?.parts ?? []).some((p) => p.functionResponse);
      if (!splitsPair && !(pending[cut - 1]!.timestamp >= first.timestamp)) break;
      cut--;
    }
    if (cut === 0) return [];
    return [...(lastCompaction >= 0 ? [events[lastCompaction]!] : []), ...pending.slice(0, cut)];
  }
  const regular = events.filter((e) => !e.actions.compaction);
  const invocationIds = unique(regular.map((e) => e.invocationId));
  const firstNew = invocationIds.indexOf(newIds[0]!);
  const windowIds = new Set(invocationIds.slice(Math.max(0, firstNew - (config.overlapSize ?? 0))));
  return regular.filter((e) => windowIds.has(e.invocationId));
}

/** A history of invocations (some events sharing or going back in time) with compactions among them. */
function randomHistory(rng: SeededRandom): Event[] {
  const events: Event[] = [];
  let t = 0;
  for (let inv = 0, n = rng.int(14); inv < n; inv++) {
    for (let k = 1 + rng.int(3); k > 0; k--) {
      t += rng.chance(0.2) ? 0 : rng.chance(0.05) ? -1 : 1;
      const response = rng.chance(0.2);
      events.push(
        createEvent({
          author: k === 1 ? "agent" : "user",
          invocationId: `i${inv}`,
          timestamp: t,
          content: response
            ? { role: "user", parts: [{ functionResponse: { id: "r", name: "tool", response: {} } }] }
            : { role: "model", parts: [{ text: `e${events.length}` }] },
          ...(rng.chance(0.2) ? { usageMetadata: { promptTokenCount: rng.int(200) } } : {}),
        }),
      );
    }
    if (rng.chance(0.35)) {
      const start = rng.chance(0.1) ? undefined : rng.int(t + 2) - 1;
      const end = (start ?? 0) + rng.int(6);
      const ranges = rng.chance(0.15) ? 2 : 1; // sometimes two summaries of one range
      for (let r = 0; r < ranges; r++)
        events.push(
          summaryEvent({
            invocationId: `c${inv}-${r}`,
            timestamp: t,
            startTimestamp: start,
            endTimestamp: end,
            text: `summary ${inv}`,
          }),
        );
    }
  }
  return events;
}

describe("compaction on long histories", () => {
  it.each([1, 2, 3, 4, 5, 6])("applies compactions as trying each one on each event does (seed %i)", (seed) => {
    const rng = new SeededRandom(seed);
    for (let round = 0; round < 300; round++) {
      const events = randomHistory(rng);
      const got = withSummaries(compactedEvents(events), "agent").map((e) => ({
        id: e.id,
        timestamp: e.timestamp,
        author: e.author,
      }));
      expect(got).toEqual(referenceApply(events, "agent"));
    }
  });

  it.each([1, 2, 3, 4, 5, 6])("finds the window the whole-history reading found (seed %i)", (seed) => {
    const rng = new SeededRandom(seed);
    for (let round = 0; round < 300; round++) {
      const events = randomHistory(rng);
      const config: EventsCompactionConfig = {
        ...(rng.chance(0.8) ? { compactionInterval: 1 + rng.int(4) } : {}),
        ...(rng.chance(0.4) ? { tokenThreshold: 50 + rng.int(100) } : {}),
        ...(rng.chance(0.5) ? { overlapSize: rng.int(3) } : {}),
        ...(rng.chance(0.4) ? { eventRetentionSize: rng.int(5) } : {}),
      };
      expect(selectCompactionWindow(events, config).map((e) => e.id)).toEqual(
        referenceWindow(events, config).map((e) => e.id),
      );
    }
  });
});

describe("the sliding window of a long session", () => {
  /** One session's array, appended to as a store does, with invocations sometimes resumed later. */
  function growing(rng: SeededRandom, turns: number, onTurn: (events: Event[]) => void): void {
    const events: Event[] = [];
    let t = 0;
    for (let inv = 0; inv < turns; inv++) {
      // Now and then an earlier invocation is resumed: its id appears again, much later.
      const id = inv > 20 && rng.chance(0.05) ? `i${rng.int(inv)}` : `i${inv}`;
      for (let k = 1 + rng.int(3); k > 0; k--) {
        events.push(
          createEvent({ author: "agent", invocationId: id, timestamp: ++t, content: { role: "model", parts: [] } }),
        );
      }
      onTurn(events);
      if (rng.chance(0.1)) {
        t++;
        events.push(summaryEvent({ invocationId: `c${inv}`, timestamp: t, endTimestamp: t - 1, text: "s" }));
      }
    }
  }

  it.each([1, 2, 3])("finds the window the whole-history reading finds, run after run (seed %i)", (seed) => {
    const rng = new SeededRandom(seed);
    const config: EventsCompactionConfig = { compactionInterval: 1 + rng.int(5), overlapSize: rng.int(3) };
    let due = 0;
    growing(rng, 400, (events) => {
      const window = selectCompactionWindow(events, config).map((e) => e.id);
      if (window.length > 0) due++;
      expect(window).toEqual(referenceWindow(events, config).map((e) => e.id));
    });
    expect(due).toBeGreaterThan(30);
  });

  it("reads the events appended since its last reading, not the whole history", () => {
    const config: EventsCompactionConfig = { compactionInterval: 10, overlapSize: 1 };
    const events: Event[] = [];
    const counted = countingReads(events);
    let t = 0;
    const perDue: number[] = [];
    for (let inv = 0; inv < 2_000; inv++) {
      for (let k = 0; k < 4; k++)
        events.push(createEvent({ author: "agent", invocationId: `i${inv}`, timestamp: ++t, content: { parts: [] } }));
      counted.reset();
      const window = selectCompactionWindow(counted.history, config);
      if (window.length === 0) continue;
      // Ten new invocations, and one before them from the second window on.
      expect(new Set(window.map((e) => e.invocationId)).size).toBe(perDue.length === 0 ? 10 : 11);
      perDue.push(counted.reads());
      t++;
      events.push(
        summaryEvent({
          invocationId: `c${inv}`,
          timestamp: t,
          startTimestamp: window[0]!.timestamp,
          endTimestamp: t - 1,
          text: "s",
        }),
      );
    }
    expect(events.length).toBeGreaterThan(8_000);
    // Each due run reads about what came since the last one (ten invocations of four events,
    // the overlap and the summary): the same at the end as near the start.
    expect(Math.max(...perDue.slice(-50))).toBeLessThan(200);
  });
});
