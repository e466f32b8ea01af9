import { createEvent, type Event } from "../events/event.js";

/**
 * The events with every regular event a compaction covers dropped; compaction events all stay
 * (`withSummaries` decides which summaries show). A compaction covers the regular events before
 * it in the history whose timestamp lies in its [startTimestamp, endTimestamp]: an event appended
 * after a summary was not summarized, whatever its clock said (another process's clock may lag).
 * Because of that, coverage of a history's prefix never changes when events are appended, and a
 * new compaction can be applied to this result instead of the whole history (the request memo
 * does, `contents.ts`): dropped events stay dropped, and every compaction is still here.
 * One pass from the end, each event checked against the union of the later compactions' ranges
 * in O(log k).
 */
export function compactedEvents(events: readonly Event[]): Event[] {
  const later = new RangeUnion();
  const kept: Event[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    const compaction = event.actions.compaction;
    if (compaction) {
      later.add(compaction.startTimestamp ?? Number.NEGATIVE_INFINITY, compaction.endTimestamp);
      kept.push(event);
    } else if (!later.has(event.timestamp)) kept.push(event);
  }
  return kept.reverse();
}

/**
 * `compactedEvents`' result with each compaction event replaced by its summary, unless another
 * compaction's range holds its whole range (an earlier summary folded into a later one; two equal
 * ranges hold each other). Summaries go in order of their end timestamps; each is placed before
 * the first regular event that is later than its range or that follows its compaction event.
 * ADK Python instead drops everything from the start timestamp up to the compaction event and
 * presents the summary as another agent's turn; here the summary is sent as is (role of
 * `compactedContent`, default "model").
 */
export function withSummaries(kept: readonly Event[], agentName: string): Event[] {
  const compactions = kept.filter((e) => e.actions.compaction);
  if (compactions.length === 0) return kept.slice();
  const folded = foldedCompactions(compactions);
  const shown = compactions.filter((e) => !folded.has(e));
  const summaries = shown
    .map((e) => ({ source: e, summary: summaryOf(e, agentName) }))
    .sort((a, b) => a.summary.timestamp - b.summary.timestamp);
  const rank = new Map(summaries.map((s, i) => [s.source, i]));
  const out: Event[] = [];
  let next = 0;
  // The highest rank among the summaries whose compaction event has been passed: those precede
  // every later event.
  let passed = -1;
  for (const event of kept) {
    if (event.actions.compaction) {
      passed = Math.max(passed, rank.get(event) ?? -1);
      continue;
    }
    while (next < summaries.length && (next <= passed || summaries[next]!.summary.timestamp < event.timestamp)) {
      out.push(summaries[next++]!.summary);
    }
    out.push(event);
  }
  while (next < summaries.length) out.push(summaries[next++]!.summary);
  return out;
}

function summaryOf(e: Event, agentName: string): Event {
  const compaction = e.actions.compaction!;
  return createEvent({
    id: e.id,
    invocationId: e.invocationId,
    timestamp: compaction.endTimestamp,
    author: agentName,
    branch: e.branch,
    content: { role: compaction.compactedContent.role ?? "model", parts: compaction.compactedContent.parts ?? [] },
  });
}

/** The compactions whose range another one's holds: one sweep over the ranges sorted by start. */
function foldedCompactions(compactions: Event[]): Set<Event> {
  const ranges = compactions.map((c) => ({
    event: c,
    start: c.actions.compaction!.startTimestamp ?? Number.NEGATIVE_INFINITY,
    end: c.actions.compaction!.endTimestamp,
  }));
  // Widest first among equal starts: every range before another in this order starts no later,
  // so the other lies inside one of them exactly when the largest end before it reaches its end.
  ranges.sort((a, b) => a.start - b.start || b.end - a.end);
  const folded = new Set<Event>();
  let widest = Number.NEGATIVE_INFINITY;
  ranges.forEach((range, i) => {
    const previous = ranges[i - 1];
    const same = previous !== undefined && previous.start === range.start && previous.end === range.end;
    if (same) folded.add(previous.event);
    if (same || widest >= range.end) folded.add(range.event);
    widest = Math.max(widest, range.end);
  });
  return folded;
}

/** A union of closed ranges, kept as disjoint sorted ranges: insertion and lookup by binary search. */
class RangeUnion {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  add(start: number, end: number): void {
    if (!(start <= end)) return;
    // The ranges that touch [start, end]: from the first ending at or after `start` to the last
    // starting at or before `end`; they merge into one.
    const first = this.firstEndingFrom(start);
    let last = first;
    while (last < this.starts.length && this.starts[last]! <= end) last++;
    if (last > first) {
      start = Math.min(start, this.starts[first]!);
      end = Math.max(end, this.ends[last - 1]!);
    }
    this.starts.splice(first, last - first, start);
    this.ends.splice(first, last - first, end);
  }

  has(value: number): boolean {
    const i = this.firstEndingFrom(value);
    return i < this.starts.length && this.starts[i]! <= value;
  }

  /** The index of the first range whose end is at or after `value` (the count when none is). */
  private firstEndingFrom(value: number): number {
    let low = 0;
    let high = this.ends.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.ends[mid]! < value) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
