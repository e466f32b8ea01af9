import type { Event } from "../events/event.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";
import type { EventsCompactionConfig } from "./app.js";

/**
 * Sliding-window compaction (ADK's `_run_compaction_for_sliding_window`), run after an
 * invocation: once `compactionInterval` invocations happened since the last compaction, the
 * summarizer condenses them plus `overlapSize` earlier invocations into one event carrying
 * `actions.compaction`, appended to the session. Without a summarizer nothing happens.
 */
export async function compactEventsIfDue(args: {
  config: EventsCompactionConfig;
  session: Session;
  sessionService: BaseSessionService;
  signal?: AbortSignal;
}): Promise<Event | undefined> {
  const { config, session } = args;
  if (!config.summarizer) return undefined;
  const window = selectCompactionWindow(session.events, config);
  if (window.length === 0) return undefined;
  const event = await config.summarizer.maybeSummarizeEvents({ events: window, signal: args.signal });
  if (!event || args.signal?.aborted) return undefined;
  await args.sessionService.appendEvent({ session, event });
  return event;
}

/** The events to compact now, or `[]` when fewer than `compactionInterval` new invocations exist. */
export function selectCompactionWindow(events: readonly Event[], config: EventsCompactionConfig): Event[] {
  // Compaction events are appended after the invocations they cover, so whatever follows the
  // latest one is new (positions, not timestamps: consecutive events may share a timestamp).
  let lastCompaction = -1;
  events.forEach((e, i) => {
    if (e.actions.compaction) lastCompaction = i;
  });
  const regular = events.filter((e) => !e.actions.compaction);
  const invocationIds = unique(regular.map((e) => e.invocationId));
  const newIds = unique(events.slice(lastCompaction + 1).filter((e) => !e.actions.compaction).map((e) => e.invocationId));
  if (newIds.length < config.compactionInterval) return [];
  const firstNew = invocationIds.indexOf(newIds[0]!);
  const windowIds = new Set(invocationIds.slice(Math.max(0, firstNew - config.overlapSize)));
  return regular.filter((e) => windowIds.has(e.invocationId));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
