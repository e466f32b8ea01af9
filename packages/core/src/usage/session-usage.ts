import type { Event } from "../events/event.js";
import { PriceTable } from "./price-table.js";
import { addRollup, emptyRollup, type UsageRollup } from "./usage-rollup.js";
import { UsageWalk } from "./usage-walk.js";

/** The usage of one invocation of a session. */
export interface InvocationUsage extends UsageRollup {
  invocationId: string;
}

/** A session's usage: the total and each invocation's, in order. */
export interface SessionUsage {
  total: UsageRollup;
  invocations: InvocationUsage[];
}

/**
 * A session's usage computed from its stored events, so any replica (or a restarted server)
 * gets the same figures. Each invocation counts as its last final event's `agentkit:usage`
 * rollup says; events after that one, and invocations with none (a run aborted before its
 * answer, events older than usage rollups), count from their `usageMetadata`: one model call
 * per event that carries usage, tool calls from function responses, time from timestamps.
 * A summary appended by events compaction counts for nothing. Costs come from `prices` (today's
 * table, not the one of the run).
 */
export function sessionUsageFromEvents(events: readonly Event[], prices: PriceTable = new PriceTable()): SessionUsage {
  const walk = new UsageWalk();
  for (const event of events) walk.add(event);
  const total = emptyRollup();
  const invocations: InvocationUsage[] = [];
  for (const { invocationId, rollup } of walk.openInvocations()) {
    addRollup(total, rollup);
    invocations.push({ invocationId, ...prices.priceRollup(rollup) });
  }
  return { total: prices.priceRollup(total), invocations };
}
