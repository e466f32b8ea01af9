import type { UsageMetadata } from "../content/generate-content-config.js";
import { getOwn, hasOwnKeys, setOwn } from "../sessions/own-keys.js";

/** Token counts by kind, summed over model calls (the providers' `usageMetadata` fields). */
export interface TokenUsage {
  /** `promptTokenCount`: the input, cached tokens included. */
  prompt: number;
  /** `candidatesTokenCount`: the output (OpenAI counts reasoning tokens here too). */
  candidates: number;
  /** `cachedContentTokenCount`: the part of `prompt` read from a cache. */
  cached: number;
  /** `thoughtsTokenCount`: reasoning tokens. */
  thoughts: number;
  /** `toolUsePromptTokenCount`: input of the provider's own tools (Gemini). */
  toolUsePrompt: number;
  /** `totalTokenCount`, or the sum of the kinds when a provider leaves it out. */
  total: number;
}

/** The usage of one model (by the name it was called under). */
export interface ModelUsage {
  tokens: TokenUsage;
  modelCalls: number;
  /** USD; absent when the price table has no entry for the model. */
  costUsd?: number;
}

/** Usage of an invocation or a session. */
export interface UsageRollup {
  tokens: TokenUsage;
  /** Calls of a model (a before-model callback that answers instead is not one). */
  modelCalls: number;
  /** Function responses the agents produced. */
  toolCalls: number;
  /** Wall time: from the start of the invocation to its last event (a session: the sum). */
  durationMs: number;
  /** USD; absent when some model used has no price (see `unpricedModels`). */
  costUsd?: number;
  /** Models used that have no price, so `costUsd` is unknown. */
  unpricedModels?: string[];
  /** The same figures per model name. */
  models: Record<string, ModelUsage>;
}

export function emptyTokens(): TokenUsage {
  return { prompt: 0, candidates: 0, cached: 0, thoughts: 0, toolUsePrompt: 0, total: 0 };
}

export function emptyRollup(): UsageRollup {
  return { tokens: emptyTokens(), modelCalls: 0, toolCalls: 0, durationMs: 0, models: {} };
}

/**
 * True when a rollup counts nothing: no model (so no tokens: they are only added per model), no
 * tool call, no time. Adding it to another rollup leaves that one's figures as they are.
 */
export function isEmptyRollup(rollup: UsageRollup): boolean {
  return rollup.modelCalls === 0 && rollup.toolCalls === 0 && rollup.durationMs === 0 && !hasOwnKeys(rollup.models);
}

/** A provider's usage metadata as token counts (missing counts are 0). */
export function tokensOf(usage: UsageMetadata | undefined): TokenUsage {
  const tokens = emptyTokens();
  if (!usage) return tokens;
  tokens.prompt = count(usage.promptTokenCount);
  tokens.candidates = count(usage.candidatesTokenCount);
  tokens.cached = count(usage.cachedContentTokenCount);
  tokens.thoughts = count(usage.thoughtsTokenCount);
  tokens.toolUsePrompt = count(usage.toolUsePromptTokenCount);
  const total = count(usage.totalTokenCount);
  tokens.total = total > 0 ? total : tokens.prompt + tokens.candidates + tokens.thoughts + tokens.toolUsePrompt;
  return tokens;
}

export function addTokens(into: TokenUsage, add: TokenUsage): void {
  into.prompt += add.prompt;
  into.candidates += add.candidates;
  into.cached += add.cached;
  into.thoughts += add.thoughts;
  into.toolUsePrompt += add.toolUsePrompt;
  into.total += add.total;
}

/** Adds tokens and calls of one model to a rollup (totals and the model's own entry). */
export function addModelUsage(into: UsageRollup, model: string, tokens: TokenUsage, modelCalls: number): void {
  addTokens(into.tokens, tokens);
  into.modelCalls += modelCalls;
  // Model names are data (stored events may carry any): own keys only, `__proto__` included.
  let entry = getOwn<ModelUsage>(into.models as Record<string, unknown>, model);
  if (!entry) {
    entry = { tokens: emptyTokens(), modelCalls: 0 };
    setOwn(into.models as Record<string, unknown>, model, entry);
  }
  addTokens(entry.tokens, tokens);
  entry.modelCalls += modelCalls;
}

/** Adds `add` to `into` (per-model figures, tool calls, duration); costs are left to the price table. */
export function addRollup(into: UsageRollup, add: UsageRollup): void {
  for (const [model, usage] of Object.entries(add.models)) addModelUsage(into, model, usage.tokens, usage.modelCalls);
  into.toolCalls += add.toolCalls;
  into.durationMs += add.durationMs;
}

/** A deep copy of a rollup, keys in the same order (the shape is known: no generic walk). */
export function cloneRollup(rollup: UsageRollup): UsageRollup {
  const models: Record<string, ModelUsage> = {};
  for (const name of Object.keys(rollup.models)) {
    const usage = rollup.models[name]!;
    setOwn(models, name, { ...usage, tokens: { ...usage.tokens } });
  }
  const copy: UsageRollup = { ...rollup, tokens: { ...rollup.tokens }, models };
  if (rollup.unpricedModels) copy.unpricedModels = [...rollup.unpricedModels];
  return copy;
}

/**
 * A rollup read back from a stored event (`customMetadata`), or undefined when the value is
 * not one. Stored data may come from elsewhere (imported events), so every number is checked
 * and the totals are recomputed from the per-model figures.
 */
export function readRollup(value: unknown): UsageRollup | undefined {
  if (!isRecord(value) || !isRecord(value.models)) return undefined;
  const toolCalls = readCount(value.toolCalls);
  const durationMs = readCount(value.durationMs);
  if (toolCalls === undefined || durationMs === undefined) return undefined;
  const rollup = emptyRollup();
  rollup.toolCalls = toolCalls;
  rollup.durationMs = durationMs;
  for (const [name, entry] of Object.entries(value.models)) {
    if (!isRecord(entry)) return undefined;
    const tokens = readTokens(entry.tokens);
    const calls = readCount(entry.modelCalls);
    if (!tokens || calls === undefined) return undefined;
    addModelUsage(rollup, name, tokens, calls);
  }
  return rollup;
}

function readTokens(value: unknown): TokenUsage | undefined {
  if (!isRecord(value)) return undefined;
  const tokens = emptyTokens();
  for (const key of Object.keys(tokens) as (keyof TokenUsage)[]) {
    const n = readCount(value[key]);
    if (n === undefined) return undefined;
    tokens[key] = n;
  }
  return tokens;
}

function count(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function readCount(value: unknown): number | undefined {
  if (value === undefined) return 0;
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
