import type { Event } from "../events/event.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";
import type { EventsCompactionConfig } from "./app.js";
import { sessionEvents } from "../sessions/session-events.js";

/**
 * Runs after an invocation: once `compactionInterval` invocations happened since the last
 * compaction (or the latest prompt reached `tokenThreshold` tokens), the summarizer condenses the window (see `selectCompactionWindow`) into one
 * event carrying `actions.compaction`, appended to the session. Without a summarizer nothing
 * happens.
 */
export async function compactEventsIfDue(args: {
  config: EventsCompactionConfig;
  session: Session;
  sessionService: BaseSessionService;
  signal?: AbortSignal;
}): Promise<Event | undefined> {
  const { config, session } = args;
  if (!config.summarizer) return undefined;
  const window = selectCompactionWindow(sessionEvents(session), config);
  if (window.length === 0) return undefined;
  const event = await config.summarizer.maybeSummarizeEvents({ events: window, signal: args.signal });
  if (!event || args.signal?.aborted) return undefined;
  await args.sessionService.appendEvent({ session, event });
  return event;
}

/**
 * The events to compact now, or `[]` when fewer than `compactionInterval` new invocations
 * exist. Sliding window: the new invocations plus `overlapSize` earlier ones. Tail retention:
 * the latest summary (a compaction event) followed by every later event except the last
 * `eventRetentionSize`; the cut moves earlier so the kept tail never starts with a function
 * response whose call would be summarized, nor shares a timestamp with a summarized event.
 */
export function selectCompactionWindow(events: readonly Event[], config: EventsCompactionConfig): Event[] {
  // Compaction events are appended after the invocations they cover, so whatever follows the
  // latest one is new (positions, not timestamps: consecutive events may share a timestamp).
  // Found from the end: a run that is not due reads only what came since, not the whole history.
  const lastCompaction = lastCompactionIndex(events);
  // Over the token budget, any new invocation is due: the interval drops to 1.
  const interval = overTokenThreshold(events, lastCompaction, config.tokenThreshold)
    ? 1
    : (config.compactionInterval ?? Number.POSITIVE_INFINITY);
  if (interval === Number.POSITIVE_INFINITY) return [];
  const newIds = invocationsAfter(events, lastCompaction);
  if (newIds.length < interval) return [];
  if (config.eventRetentionSize !== undefined)
    return selectTailWindow(events, lastCompaction, config.eventRetentionSize);
  // The new invocations and `overlapSize` before them, in order of first appearance; all their
  // events lie at or after the first appearance of the earliest.
  const order = invocationOrder(events);
  const from = Math.max(0, order.rank.get(newIds[0]!)! - (config.overlapSize ?? 0));
  const windowIds = new Set(order.ids.slice(from));
  const window: Event[] = [];
  for (let i = order.firstAt[from]!; i < events.length; i++) {
    const event = events[i]!;
    if (!event.actions.compaction && windowIds.has(event.invocationId)) window.push(event);
  }
  return window;
}

/** The invocations of a history's regular events in order of first appearance, and where each first appears. */
interface InvocationOrder {
  /** How many events of the history were read. */
  read: number;
  /** The last event read: a history that no longer holds it there is read again from its start. */
  last: Event | undefined;
  readonly ids: string[];
  readonly firstAt: number[];
  /** Each id's index in `ids`. */
  readonly rank: Map<string, number>;
}

/**
 * Long histories whose order was read, by array: a store hands a long session's events over the
 * one array it only appends to (`sessionOverLog`), so the next due window reads only the events
 * appended since, instead of the whole history every `compactionInterval` runs. Gone with the array.
 */
const orders = new WeakMap<readonly Event[], InvocationOrder>();
/** Shorter histories are read whole each time (a store hands them over as fresh copies). */
const ORDER_KEPT_FROM = 256;

function invocationOrder(events: readonly Event[]): InvocationOrder {
  const keep = events.length >= ORDER_KEPT_FROM;
  let order = keep ? orders.get(events) : undefined;
  if (!order || order.read > events.length || (order.read > 0 && events[order.read - 1] !== order.last)) {
    order = { read: 0, last: undefined, ids: [], firstAt: [], rank: new Map() };
    if (keep) orders.set(events, order);
  }
  for (let i = order.read; i < events.length; i++) {
    const event = events[i]!;
    if (event.actions.compaction || order.rank.has(event.invocationId)) continue;
    order.rank.set(event.invocationId, order.ids.length);
    order.ids.push(event.invocationId);
    order.firstAt.push(i);
  }
  order.read = events.length;
  order.last = events.at(-1);
  return order;
}

/** Tail retention, once due: the last summary and what followed it, but the last `retain` events. */
function selectTailWindow(events: readonly Event[], lastCompaction: number, retain: number): Event[] {
  // By timestamp, not position: the tail kept verbatim last time sits before that summary event.
  const previousEnd =
    lastCompaction >= 0 ? events[lastCompaction]!.actions.compaction!.endTimestamp : Number.NEGATIVE_INFINITY;
  const pending = events.filter((e) => !e.actions.compaction && e.timestamp > previousEnd);
  let cut = Math.max(0, pending.length - retain);
  while (cut > 0 && cut < pending.length) {
    const first = pending[cut]!;
    const splitsPair = (first.content?.parts ?? []).some((p) => p.functionResponse);
    const sharesTimestamp = pending[cut - 1]!.timestamp >= first.timestamp;
    if (!splitsPair && !sharesTimestamp) break;
    cut--;
  }
  if (cut === 0) return [];
  const previous = lastCompaction >= 0 ? [events[lastCompaction]!] : [];
  return [...previous, ...pending.slice(0, cut)];
}

/** True when the latest model call after the last compaction had a prompt of `threshold` tokens or more. */
function overTokenThreshold(events: readonly Event[], lastCompaction: number, threshold: number | undefined): boolean {
  if (threshold === undefined) return false;
  for (let i = events.length - 1; i > lastCompaction; i--) {
    const prompt = events[i]!.usageMetadata?.promptTokenCount;
    if (prompt !== undefined) return prompt >= threshold;
  }
  return false;
}

/** The position of the latest compaction event, or -1. */
function lastCompactionIndex(events: readonly Event[]): number {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.actions.compaction) return i;
  return -1;
}

/** The invocations of the events after position `from` (compaction events aside), in order. */
function invocationsAfter(events: readonly Event[], from: number): string[] {
  const ids = new Set<string>();
  for (let i = from + 1; i < events.length; i++) {
    const event = events[i]!;
    if (!event.actions.compaction) ids.add(event.invocationId);
  }
  return [...ids];
}
