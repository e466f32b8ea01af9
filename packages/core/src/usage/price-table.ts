import { ConfigurationError } from "../errors/agentkit-error.js";
import { getOwn, setOwn } from "../sessions/own-keys.js";
import type { TokenUsage, UsageRollup } from "./usage-rollup.js";

/** What a model costs, in USD per million tokens. */
export interface ModelPrice {
  /** Input (prompt) tokens that were not read from a cache. */
  inputPerMillion: number;
  /** Output tokens, thoughts included. */
  outputPerMillion: number;
  /** Input tokens read from a cache; without it they cost `inputPerMillion`. */
  cachedInputPerMillion?: number;
}

/** The date the shipped prices were taken from the providers' public pricing pages. */
export const DEFAULT_PRICES_AS_OF = "2026-11-25";

/**
 * List prices of current Gemini, OpenAI and Anthropic models, compiled on
 * `DEFAULT_PRICES_AS_OF` from the providers' public pricing pages: standard tier, text, the
 * lowest prompt-length tier (Gemini Pro models and Claude Haiku 5.5 charge more for long
 * prompts); batch discounts, regional surcharges and cache-write or cache-storage fees are not
 * modelled. Prices change: override them (`prices` on the App or Runner) with your own.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, Readonly<ModelPrice>>> = Object.freeze({
  // Google Gemini API (ai.google.dev/gemini-api/docs/pricing), prompts up to 200k tokens
  "gemini-3.1-pro-preview": price(2, 12, 0.2),
  "gemini-3.1-flash-lite-preview": price(0.25, 1.5, 0.025),
  "gemini-3-pro-preview": price(2, 12, 0.2),
  "gemini-3-flash-preview": price(0.5, 3, 0.05),
  "gemini-2.5-pro": price(1.25, 10, 0.125),
  "gemini-2.5-flash": price(0.3, 2.5, 0.03),
  "gemini-2.5-flash-lite": price(0.1, 0.4, 0.01),
  // OpenAI (openai.com/api/pricing)
  "gpt-5": price(1.25, 10, 0.125),
  "gpt-5-mini": price(0.25, 2, 0.025),
  "gpt-5-nano": price(0.05, 0.4, 0.005),
  "gpt-4.1": price(2, 8, 0.5),
  "gpt-4.1-mini": price(0.4, 1.6, 0.1),
  "gpt-4.1-nano": price(0.1, 0.4, 0.025),
  "gpt-4o": price(2.5, 10, 1.25),
  "gpt-4o-mini": price(0.15, 0.6, 0.075),
  o3: price(2, 8, 0.5),
  "o4-mini": price(1.1, 4.4, 0.275),
  // Anthropic (platform.claude.com/docs/en/about-claude/pricing); cache hits are the cached input
  "claude-opus-5-5": price(4, 20, 0.2),
  "claude-opus-5": price(5, 25, 0.5),
  "claude-opus-4-8": price(5, 25, 0.5),
  "claude-opus-4-7": price(5, 25, 0.5),
  "claude-opus-4-6": price(5, 25, 0.5),
  "claude-opus-4-5": price(5, 25, 0.5),
  "claude-sonnet-5-5": price(2, 10, 0.1),
  "claude-sonnet-5": price(2, 10, 0.2),
  "claude-sonnet-4-6": price(3, 15, 0.3),
  "claude-sonnet-4-5": price(3, 15, 0.3),
  "claude-haiku-5-5": price(0.1, 0.5, 0.01),
  "claude-haiku-4-5": price(1, 5, 0.1),
});

function price(inputPerMillion: number, outputPerMillion: number, cachedInputPerMillion: number): ModelPrice {
  return Object.freeze({ inputPerMillion, outputPerMillion, cachedInputPerMillion });
}

export interface PriceTableOptions {
  /** Prices by model name; they win over the shipped ones. */
  prices?: Record<string, ModelPrice>;
  /** Start from `DEFAULT_MODEL_PRICES` (default true). */
  includeDefaults?: boolean;
}

const MAX_REMEMBERED_NAMES = 1024;

// Prefixes the registry accepts (`openai/gpt-4o`), Gemini's resource form (`models/…`).
const NAME_PREFIX = /^(?:models\/|openai\/|anthropic\/|gemini\/|google\/)/;
// Dated or numbered snapshots of a priced model: `-2024-07-18`, `-20250929`, `-001`, `-latest`.
const SNAPSHOT_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{3}|latest)$/;

/**
 * Model prices: the shipped list, extended and overridden by the user's. A name is found as
 * written, then without a provider prefix (`openai/`, `models/` …) and without a snapshot
 * suffix (`-2024-07-18`, `-20250929`, `-001`, `-latest`). A model that is not found has no
 * price: its cost is `undefined`, never an estimate.
 */
export class PriceTable {
  private readonly prices: Record<string, ModelPrice> = {};
  /** What `get` found for each name asked (every final event prices its rollups); cleared by `set`. */
  private readonly found = new Map<string, ModelPrice | undefined>();

  constructor(options: PriceTableOptions = {}) {
    if (options.includeDefaults ?? true) this.addAll(DEFAULT_MODEL_PRICES);
    if (options.prices) this.addAll(options.prices);
  }

  /** A table from what `App`/`Runner` take: a table, a record of prices, or nothing (the defaults). */
  static from(value: PriceTable | Record<string, ModelPrice> | undefined): PriceTable {
    if (value instanceof PriceTable) return value;
    return new PriceTable(value ? { prices: value } : {});
  }

  /** Adds or replaces one model's price. */
  set(model: string, price: ModelPrice): this {
    checkPrice(model, price);
    setOwn(this.prices as Record<string, unknown>, model.toLowerCase(), { ...price });
    this.found.clear();
    return this;
  }

  /** The price of a model, or undefined when unknown. */
  get(model: string): ModelPrice | undefined {
    if (this.found.has(model)) return this.found.get(model);
    const price = this.find(model);
    // Names come from stored events too: keep the memo bounded.
    if (this.found.size >= MAX_REMEMBERED_NAMES) this.found.clear();
    this.found.set(model, price);
    return price;
  }

  /** USD for these tokens of this model; undefined when the model has no price. */
  costOf(model: string, tokens: TokenUsage): number | undefined {
    const price = this.get(model);
    if (!price) return undefined;
    const cached = Math.min(tokens.cached, tokens.prompt + tokens.toolUsePrompt);
    const input = tokens.prompt + tokens.toolUsePrompt - cached;
    // The total minus the input is every output token, whether a provider reports thoughts
    // inside the candidates (OpenAI) or beside them (Gemini).
    const output = Math.max(0, tokens.total - tokens.prompt - tokens.toolUsePrompt);
    const usd =
      input * price.inputPerMillion +
      cached * (price.cachedInputPerMillion ?? price.inputPerMillion) +
      output * price.outputPerMillion;
    return usd / 1_000_000;
  }

  /** Fills in `costUsd` of every model of the rollup and of the rollup itself (absent when any is unknown). */
  priceRollup(rollup: UsageRollup): UsageRollup {
    let total = 0;
    const unpriced: string[] = [];
    const models = rollup.models;
    for (const model of Object.keys(models)) {
      const usage = models[model]!;
      const cost = this.costOf(model, usage.tokens);
      if (cost === undefined) {
        // Deleted only when present: `delete` of a missing key still costs a runtime call.
        if (Object.hasOwn(usage, "costUsd")) delete usage.costUsd;
        unpriced.push(model);
      } else {
        usage.costUsd = cost;
        total += cost;
      }
    }
    if (unpriced.length > 0) {
      if (Object.hasOwn(rollup, "costUsd")) delete rollup.costUsd;
      rollup.unpricedModels = unpriced;
    } else {
      rollup.costUsd = total;
      if (Object.hasOwn(rollup, "unpricedModels")) delete rollup.unpricedModels;
    }
    return rollup;
  }

  private addAll(prices: Readonly<Record<string, ModelPrice>>): void {
    for (const [model, price] of Object.entries(prices)) this.set(model, price);
  }

  private find(model: string): ModelPrice | undefined {
    let name = model.trim().toLowerCase();
    const exact = this.lookup(name);
    if (exact) return exact;
    name = name.replace(NAME_PREFIX, "");
    return this.lookup(name) ?? this.lookup(name.replace(SNAPSHOT_SUFFIX, ""));
  }

  private lookup(name: string): ModelPrice | undefined {
    return getOwn<ModelPrice>(this.prices as Record<string, unknown>, name);
  }
}

function checkPrice(model: string, price: ModelPrice): void {
  const fields: (keyof ModelPrice)[] = ["inputPerMillion", "outputPerMillion", "cachedInputPerMillion"];
  for (const field of fields) {
    const value = price?.[field];
    if (value === undefined && field === "cachedInputPerMillion") continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new ConfigurationError(
        `Invalid price for model "${model}": ${field} must be a number of USD per million tokens, 0 or more ` +
          `(got ${JSON.stringify(value)}).`,
      );
    }
  }
}
