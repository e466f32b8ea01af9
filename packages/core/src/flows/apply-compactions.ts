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
  const compactions = events.filter((e) => e.actions.compaction);
  const covers = (c: Event, e: Event) => {
    if (c === e) return false;
    const { startTimestamp, endTimestamp } = c.actions.compaction!;
    const start = startTimestamp ?? Number.NEGATIVE_INFINITY;
    const inner = e.actions.compaction;
    // An earlier summary is replaced only by one whose range contains its whole range (it was
    // folded in, as tail retention does); a sliding window's neighbour summaries all stay.
    if (inner) return (inner.startTimestamp ?? Number.NEGATIVE_INFINITY) >= start && inner.endTimestamp <= endTimestamp;
    return e.timestamp >= start && e.timestamp <= endTimestamp;
  };
  const kept = events.filter((e) => !compactions.some((c) => covers(c, e)));
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
