import { EMPTY_OBJECT, markDeepFrozen } from "../content/snapshot-sharing.js";
import { setOwn } from "../sessions/own-keys.js";
import type { ModelUsage, TokenUsage, UsageRollup } from "./usage-rollup.js";
import type { UsageSnapshot } from "./usage-tracker.js";

/**
 * The `agentkit:usage` value a final event carries, built frozen all the way down and marked so
 * (`markDeepFrozen`): the in-memory store keeps it as it is instead of copying it. Every session
 * keeps one per invocation, so it is built small: each record comes from an object literal (V8
 * allocates literals that keep surviving straight in the old generation, where young
 * collections no longer copy them), a model's token counts that equal the totals (one model) are
 * the totals' object, and a session rollup given as the invocation's own object (a session with
 * no earlier usage) is one record. The JSON is what the unfrozen rollups give: the same keys in
 * the same order.
 */
export function frozenUsageSnapshot(invocation: UsageRollup, session: UsageRollup): UsageSnapshot {
  const frozenInvocation = frozenRollup(invocation);
  const frozenSession = session === invocation ? frozenInvocation : frozenRollup(session);
  return markDeepFrozen({ invocation: frozenInvocation, session: frozenSession });
}

function frozenRollup(rollup: UsageRollup): UsageRollup {
  const tokens = frozenTokens(rollup.tokens);
  const models = frozenModels(rollup.models, tokens);
  // The optional keys close the record, as `PriceTable.priceRollup` appends them: one literal per shape.
  if (rollup.unpricedModels !== undefined) {
    return Object.freeze({
      tokens,
      modelCalls: rollup.modelCalls,
      toolCalls: rollup.toolCalls,
      durationMs: rollup.durationMs,
      models,
      unpricedModels: frozenNames(rollup.unpricedModels),
    });
  }
  if (rollup.costUsd !== undefined) {
    return Object.freeze({
      tokens,
      modelCalls: rollup.modelCalls,
      toolCalls: rollup.toolCalls,
      durationMs: rollup.durationMs,
      models,
      costUsd: rollup.costUsd,
    });
  }
  return Object.freeze({
    tokens,
    modelCalls: rollup.modelCalls,
    toolCalls: rollup.toolCalls,
    durationMs: rollup.durationMs,
    models,
  });
}

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
  // One name is the common case (the one model of an unpriced invocation): a literal too.
  return Object.freeze(names.length === 1 ? [names[0]!] : names.slice()) as string[];
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
