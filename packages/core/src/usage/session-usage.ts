import { getFunctionResponses, isFinalResponse, type Event } from "../events/event.js";
import { PriceTable } from "./price-table.js";
import { MODEL_METADATA_KEY, USAGE_METADATA_KEY } from "./usage-metadata-keys.js";
import { addModelUsage, addRollup, emptyRollup, readRollup, tokensOf, type UsageRollup } from "./usage-rollup.js";

/** The usage of one invocation of a session. */
export interface InvocationUsage extends UsageRollup {
  invocationId: string;
}

/** A session's usage: the total and each invocation's, in order. */
export interface SessionUsage {
  total: UsageRollup;
  invocations: InvocationUsage[];
}

interface Pending {
  id: string;
  stored?: UsageRollup;
  storedAt?: number;
  /** Usage of events after the last stored rollup (or of all events when there is none). */
  after: UsageRollup;
  first: number;
  last: number;
  agentEvents: number;
}

/**
 * A session's usage computed from its stored events, so any replica (or a restarted server)
 * gets the same figures. Each invocation counts as its last final event's `agentkit:usage`
 * rollup says; events after that one, and invocations with none (a run aborted before its
 * answer, events older than usage rollups), count from their `usageMetadata`: one model call
 * per event that carries usage, tool calls from function responses, time from timestamps.
 * Costs come from `prices` (today's table, not the one of the run).
 */
export function sessionUsageFromEvents(events: readonly Event[], prices: PriceTable = new PriceTable()): SessionUsage {
  const byId = new Map<string, Pending>();
  for (const event of events) {
    if (event.partial) continue;
    let pending = byId.get(event.invocationId);
    if (!pending) {
      pending = {
        id: event.invocationId,
        after: emptyRollup(),
        first: event.timestamp,
        last: event.timestamp,
        agentEvents: 0,
      };
      byId.set(event.invocationId, pending);
    }
    pending.first = Math.min(pending.first, event.timestamp);
    pending.last = Math.max(pending.last, event.timestamp);
    if (event.author === "user") continue;
    pending.agentEvents += 1;
    const stored = readInvocationUsage(event);
    if (stored) {
      pending.stored = stored;
      pending.storedAt = event.timestamp;
      pending.after = emptyRollup();
      continue;
    }
    if (event.usageMetadata) addModelUsage(pending.after, modelNameOf(event), tokensOf(event.usageMetadata), 1);
    pending.after.toolCalls += getFunctionResponses(event).length;
  }

  const total = emptyRollup();
  const invocations: InvocationUsage[] = [];
  for (const pending of byId.values()) {
    if (pending.agentEvents === 0) continue;
    const rollup = emptyRollup();
    if (pending.stored) addRollup(rollup, pending.stored);
    addRollup(rollup, pending.after);
    const since = pending.stored ? pending.storedAt! : pending.first;
    rollup.durationMs += Math.max(0, Math.round((pending.last - since) * 1000));
    addRollup(total, rollup);
    invocations.push({ invocationId: pending.id, ...prices.priceRollup(rollup) });
  }
  return { total: prices.priceRollup(total), invocations };
}

/** The invocation rollup a final event carries (`agentkit:usage`), or undefined. */
export function readInvocationUsage(event: Event): UsageRollup | undefined {
  if (event.partial || event.author === "user" || !isFinalResponse(event)) return undefined;
  const value = event.customMetadata?.[USAGE_METADATA_KEY];
  if (typeof value !== "object" || value === null) return undefined;
  return readRollup((value as { invocation?: unknown }).invocation);
}

function modelNameOf(event: Event): string {
  const named = event.customMetadata?.[MODEL_METADATA_KEY];
  if (typeof named === "string" && named !== "") return named;
  return event.modelVersion ?? "unknown";
}
