import { createEvent, type Event } from "../events/event.js";

/**
 * Replaces compacted ranges by their summaries: every event whose timestamp lies in a
 * compaction's [startTimestamp, endTimestamp] is dropped (an earlier compaction event only
 * when its own range lies inside the later one's), and the summary takes the place of the range (before the first
 * kept event after `endTimestamp`). ADK Python instead drops everything from the start
 * timestamp up to the compaction event and presents the summary as another agent's turn;
 * here the summary is sent as is (role of `compactedContent`, default "model").
 */
export function applyCompactions(events: Event[], agentName: string): Event[] {
  const covered = coveredEvents(events.filter((e) => e.actions.compaction));
  const kept = events.filter((e) => !covered(e));
  const summaries = kept
    .filter((e) => e.actions.compaction)
    .map((e) => {
      const compaction = e.actions.compaction!;
      return createEvent({
        id: e.id,
        invocationId: e.invocationId,
        timestamp: compaction.endTimestamp,
        author: agentName,
        branch: e.branch,
        content: { role: compaction.compactedContent.role ?? "model", parts: compaction.compactedContent.parts ?? [] },
      });
    })
    .sort((a, b) => a.timestamp - b.timestamp);
  const out: Event[] = [];
  for (const event of kept) {
    if (event.actions.compaction) continue;
    while (summaries.length > 0 && summaries[0]!.timestamp < event.timestamp) out.push(summaries.shift()!);
    out.push(event);
  }
  return [...out, ...summaries];
}

/**
 * Which events the compactions cover, decided in O(log k) per event instead of trying each of
 * the k compactions (a long compacted session has hundreds): a regular event is covered when its
 * timestamp lies in the union of their ranges; a compaction event when another one's range holds
 * its whole range (an earlier summary folded into a later one; two equal ranges hold each other).
 */
function coveredEvents(compactions: Event[]): (event: Event) => boolean {
  if (compactions.length === 0) return () => false;
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
  // The union of the ranges, as disjoint [start, end] pairs in order.
  const union: { start: number; end: number }[] = [];
  for (const { start, end } of ranges) {
    const last = union[union.length - 1];
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else union.push({ start, end });
  }
  return (event) => {
    if (event.actions.compaction) return folded.has(event);
    let low = 0;
    let high = union.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const range = union[mid]!;
      if (event.timestamp < range.start) high = mid - 1;
      else if (event.timestamp > range.end) low = mid + 1;
      else return true;
    }
    return false;
  };
}
