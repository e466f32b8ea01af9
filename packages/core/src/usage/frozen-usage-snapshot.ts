import { plainRecordConstructor } from "../content/sized-record.js";
import { EMPTY_OBJECT, markDeepFrozen } from "../content/snapshot-sharing.js";
import { setOwn } from "../sessions/own-keys.js";
import type { ModelUsage, TokenUsage, UsageRollup } from "./usage-rollup.js";
import type { UsageSnapshot } from "./usage-tracker.js";

/**
 * The `agentkit:usage` value a final event carries, built frozen all the way down and marked so
 * (`markDeepFrozen`): the in-memory store keeps it as it is instead of copying it. Every session
 * keeps one per invocation, and each kept object costs the young collections a copy, so it is
 * built with as few objects as the JSON allows: a model's token counts that equal the totals (one
 * model) are the totals' object, a session rollup given as the invocation's own object (a session
 * with no earlier usage) is one record, a one-model list of unpriced models is shared, and the
 * top record has room for the mark. The JSON is what the unfrozen rollups give: the same keys in
 * the same order.
 */
export function frozenUsageSnapshot(invocation: UsageRollup, session: UsageRollup): UsageSnapshot {
  const frozenInvocation = frozenRollup(invocation);
  const frozenSession = session === invocation ? frozenInvocation : frozenRollup(session);
  return markDeepFrozen(new UsageScopes(frozenInvocation, frozenSession));
}

/**
 * The `{ invocation, session }` record, made by `new` so that V8's slack tracking sizes its
 * objects to three fields: the two keys and the mark. A literal has room for its two keys only,
 * and the mark would take a separate property array (one more object kept per final event).
 * Its prototype is `Object.prototype`: a plain object to every reader.
 */
const UsageScopes = plainRecordConstructor(function UsageScopes(
  this: UsageSnapshot,
  invocation: UsageRollup,
  session: UsageRollup,
): void {
  this.invocation = invocation;
  this.session = session;
});

function frozenRollup(rollup: UsageRollup): UsageRollup {
  const tokens = frozenTokens(rollup.tokens);
  const record = new RollupRecord(
    tokens,
    rollup.modelCalls,
    rollup.toolCalls,
    rollup.durationMs,
    frozenModels(rollup.models, tokens),
  );
  // The optional key closes the record, as `PriceTable.priceRollup` appends it (one or the other).
  if (rollup.unpricedModels !== undefined) record.unpricedModels = frozenNames(rollup.unpricedModels);
  else if (rollup.costUsd !== undefined) record.costUsd = rollup.costUsd;
  return Object.freeze(record);
}

/**
 * A rollup's record, made by `new` so that V8's slack tracking gives its objects room for the
 * optional key added after the five others (a priced rollup always has one): a literal of the
 * five would put it in a separate property array.
 */
const RollupRecord = plainRecordConstructor(function RollupRecord(
  this: UsageRollup,
  tokens: TokenUsage,
  modelCalls: number,
  toolCalls: number,
  durationMs: number,
  models: Record<string, ModelUsage>,
): void {
  this.tokens = tokens;
  this.modelCalls = modelCalls;
  this.toolCalls = toolCalls;
  this.durationMs = durationMs;
  this.models = models;
});

/** The per-model records; `totals` stands in for a model's tokens when they are equal (a single model). */
function frozenModels(models: Record<string, ModelUsage>, totals: TokenUsage): Record<string, ModelUsage> {
  const names = Object.keys(models);
  if (names.length === 0) return EMPTY_OBJECT;
  const out: Record<string, ModelUsage> = {};
  for (const name of names) {
    const usage = models[name]!;
    const tokens = sameTokens(usage.tokens, totals) ? totals : frozenTokens(usage.tokens);
    const frozen =
      usage.costUsd !== undefined
        ? Object.freeze({ tokens, modelCalls: usage.modelCalls, costUsd: usage.costUsd })
        : Object.freeze({ tokens, modelCalls: usage.modelCalls });
    // Model names are data: own keys only, `__proto__` included.
    setOwn(out as Record<string, unknown>, name, frozen);
  }
  return Object.freeze(out);
}

function frozenTokens(tokens: TokenUsage): TokenUsage {
  return Object.freeze({
    prompt: tokens.prompt,
    candidates: tokens.candidates,
    cached: tokens.cached,
    thoughts: tokens.thoughts,
    toolUsePrompt: tokens.toolUsePrompt,
    total: tokens.total,
  });
}

function frozenNames(names: string[]): string[] {
  // One name is the common case (the one model of an unpriced invocation): shared.
  if (names.length === 1) return singleName(names[0]!);
  return Object.freeze(names.slice()) as string[];
}

/**
 * Frozen one-name lists by name, shared by every rollup that names one unpriced model (an app
 * uses a handful of models, and each kept list is two objects: the array and its elements).
 * Bounded in count and in bytes: past `MAX_SINGLE_NAMES` names, and for a name longer than
 * `MAX_SHARED_NAME_LENGTH` (a name can come from a model's response), a list is made per rollup.
 */
const singleNames = new Map<string, string[]>();
const MAX_SINGLE_NAMES = 64;
const MAX_SHARED_NAME_LENGTH = 200;

function singleName(name: string): string[] {
  const shared = singleNames.get(name);
  if (shared) return shared;
  const list = Object.freeze([name]) as string[];
  if (singleNames.size < MAX_SINGLE_NAMES && name.length <= MAX_SHARED_NAME_LENGTH) singleNames.set(name, list);
  return list;
}

function sameTokens(a: TokenUsage, b: TokenUsage): boolean {
  return (
    a.prompt === b.prompt &&
    a.candidates === b.candidates &&
    a.cached === b.cached &&
    a.thoughts === b.thoughts &&
    a.toolUsePrompt === b.toolUsePrompt &&
    a.total === b.total
  );
}
