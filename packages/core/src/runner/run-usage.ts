import type { InvocationContext } from "../context/invocation-context.js";
import type { BudgetExceededError } from "../errors/budget-errors.js";
import { createEvent, isFinalResponse, type Event } from "../events/event.js";
import type { Session } from "../sessions/session.js";
import type { Budget } from "../usage/budget.js";
import type { PriceTable } from "../usage/price-table.js";
import type { SessionUsageCache } from "../usage/session-usage-cache.js";
import { USAGE_METADATA_KEY } from "../usage/usage-metadata-keys.js";
import { UsageTracker } from "../usage/usage-tracker.js";
import { sessionEvents } from "../sessions/session-events.js";

/** The usage tracker of a new invocation: the session's stored usage so far, the run's budget. */
export function newUsageTracker(args: {
  session: Session;
  usageCache: SessionUsageCache;
  prices: PriceTable;
  budget?: Budget;
  now?: () => number;
}): UsageTracker {
  // The events loaded for this run, before it appends any: later appends only add to the end of
  // the list (the session's or its store's, see sessionEvents), so its first `count` stay.
  const events = sessionEvents(args.session);
  const count = events.length;
  return new UsageTracker({
    prices: args.prices,
    // Computed on first use (the tracker keeps it), from what the cache has not read yet. Bound,
    // not an arrow: runtimes that keep function names (tsx) define one on every named closure.
    sessionBefore: args.usageCache.totalBefore.bind(args.usageCache, events, count, args.prices),
    ...(args.budget ? { budget: args.budget } : {}),
    ...(args.now ? { now: args.now } : {}),
  });
}

/**
 * Counts an agent's complete event (tool calls) and, when it is a final response, stores the
 * usage so far under `customMetadata["agentkit:usage"]`: the invocation's last final event
 * then carries its totals. Invocations that called no model and no tool (an agent that
 * answers by itself) get none; partial events are left alone.
 */
export function recordEventUsage(ctx: InvocationContext, event: Event, count = true): void {
  if (event.partial) return;
  if (count) ctx.usage.recordEvent(event);
  if (event.author === "user" || !isFinalResponse(event) || !ctx.usage.hasActivity) return;
  event.customMetadata = { ...event.customMetadata, [USAGE_METADATA_KEY]: ctx.usage.snapshot() };
}

/** The event that tells the client a budget stopped the run (stored like any other). */
export function budgetExceededEvent(ctx: InvocationContext, error: BudgetExceededError): Event {
  return createEvent({
    invocationId: ctx.invocationId,
    author: error.agentName ?? ctx.agent.name,
    branch: error.branch,
    errorCode: error.code,
    errorMessage: error.message,
  });
}
