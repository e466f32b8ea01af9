import { countFunctionResponses, isFinalResponse, type Event } from "../events/event.js";
import { MODEL_METADATA_KEY, USAGE_METADATA_KEY } from "./usage-metadata-keys.js";
import {
  addModelUsage,
  addRollup,
  cloneRollup,
  emptyRollup,
  readRollup,
  tokensOf,
  type UsageRollup,
} from "./usage-rollup.js";

/** What the walk knows of one invocation while it reads the session's events. */
interface PendingInvocation {
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
 * The one reading of a session's usage from its events, event by event (see
 * `sessionUsageFromEvents` for the rules). Invocations are kept in the order of their first
 * event. `seal()` folds all of them but the newest into a running total, so a walk kept between
 * invocations of a session holds one open invocation and costs only the events added to it; an
 * event of a sealed invocation cannot be added (`add` returns false: walk again from the start).
 * Sealing adds the same rollups in the same order as the end of a full walk, so the total is the
 * same to the last bit.
 */
export class UsageWalk {
  private readonly open = new Map<string, PendingInvocation>();
  private readonly sealed = new Set<string>();
  /** Sum of the sealed invocations' rollups, in order. */
  private readonly sealedTotal = emptyRollup();

  /** Reads one event; false (and nothing read) when it belongs to a sealed invocation. */
  add(event: Event): boolean {
    // A summary appended by events compaction is no part of a run: it carries an invocation id
    // (the last one it covers, often sealed by then) but neither usage nor a run's time.
    if (event.partial || event.actions.compaction) return true;
    if (this.sealed.has(event.invocationId)) return false;
    let pending = this.open.get(event.invocationId);
    if (!pending) {
      pending = {
        id: event.invocationId,
        after: emptyRollup(),
        first: event.timestamp,
        last: event.timestamp,
        agentEvents: 0,
      };
      this.open.set(event.invocationId, pending);
    }
    pending.first = Math.min(pending.first, event.timestamp);
    pending.last = Math.max(pending.last, event.timestamp);
    if (event.author === "user") return true;
    pending.agentEvents += 1;
    const stored = readInvocationUsage(event);
    if (stored) {
      pending.stored = stored;
      pending.storedAt = event.timestamp;
      pending.after = emptyRollup();
      return true;
    }
    if (event.usageMetadata) addModelUsage(pending.after, modelNameOf(event), tokensOf(event.usageMetadata), 1);
    pending.after.toolCalls += countFunctionResponses(event);
    return true;
  }

  /** Each open invocation that has agent events, with its usage (unpriced), in order. */
  openInvocations(): { invocationId: string; rollup: UsageRollup }[] {
    const out: { invocationId: string; rollup: UsageRollup }[] = [];
    for (const pending of this.open.values()) {
      if (pending.agentEvents > 0) out.push({ invocationId: pending.id, rollup: rollupOf(pending) });
    }
    return out;
  }

  /** The session's usage so far (unpriced): the sealed total plus every open invocation, in order. */
  total(): UsageRollup {
    const total = cloneRollup(this.sealedTotal);
    for (const { rollup } of this.openInvocations()) addRollup(total, rollup);
    return total;
  }

  /** Folds every open invocation but the newest into the sealed total. */
  seal(): void {
    let left = this.open.size - 1;
    for (const [id, pending] of this.open) {
      if (left-- <= 0) return;
      if (pending.agentEvents > 0) addRollup(this.sealedTotal, rollupOf(pending));
      this.sealed.add(id);
      this.open.delete(id);
    }
  }
}

function rollupOf(pending: PendingInvocation): UsageRollup {
  const rollup = emptyRollup();
  if (pending.stored) addRollup(rollup, pending.stored);
  addRollup(rollup, pending.after);
  const since = pending.stored ? pending.storedAt! : pending.first;
  rollup.durationMs += Math.max(0, Math.round((pending.last - since) * 1000));
  return rollup;
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
