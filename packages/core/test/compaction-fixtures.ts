// Test fixtures for compacted histories: summary events and a history that counts its reads.
import { createEvent, type Event } from "../src/index.js";

/** A compaction event (a summary of `[startTimestamp, endTimestamp]`) as the runner appends one. */
export function summaryEvent(init: {
  invocationId: string;
  timestamp: number;
  startTimestamp?: number | undefined;
  endTimestamp: number;
  text: string;
  branch?: string | undefined;
}): Event {
  return createEvent({
    author: "user",
    invocationId: init.invocationId,
    timestamp: init.timestamp,
    ...(init.branch === undefined ? {} : { branch: init.branch }),
    actions: {
      compaction: {
        ...(init.startTimestamp === undefined ? {} : { startTimestamp: init.startTimestamp }),
        endTimestamp: init.endTimestamp,
        compactedContent: { role: "model", parts: [{ text: init.text }] },
      },
    },
  });
}

/** `events` behind a proxy that counts reads of its elements (appends go to `events` itself). */
export function countingReads(events: Event[]): { history: Event[]; reads: () => number; reset: () => void } {
  let reads = 0;
  const history = new Proxy(events, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { history, reads: () => reads, reset: () => void (reads = 0) };
}
