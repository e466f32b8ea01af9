import { ConfigurationError } from "../errors/agentkit-error.js";
import { BudgetExceededError, type BudgetKind, type BudgetScope } from "../errors/budget-errors.js";
import { countFunctionResponses, type Event } from "../events/event.js";
import type { LlmResponse } from "../models/llm-response.js";
import type { Budget, UsageLimits } from "./budget.js";
import { frozenUsageSnapshot } from "./frozen-usage-snapshot.js";
import { PriceTable } from "./price-table.js";
import { MODEL_METADATA_KEY } from "./usage-metadata-keys.js";
import {
  addModelUsage,
  addRollup,
  cloneRollup,
  emptyRollup,
  isEmptyRollup,
  tokensOf,
  type UsageRollup,
} from "./usage-rollup.js";

export interface UsageTrackerOptions {
  prices?: PriceTable;
  budget?: Budget;
  /** The session's usage before this invocation (from its stored events); a function is called once, when needed. */
  sessionBefore?: UsageRollup | (() => UsageRollup);
  /** Clock in milliseconds (tests replace it). */
  now?: () => number;
}

/** What `agentkit:usage` holds: the usage so far of the invocation and of its session. */
export interface UsageSnapshot {
  invocation: UsageRollup;
  session: UsageRollup;
}

/** Records the responses of one model call; `end()` counts a call that produced none. */
export interface ModelCallRecorder {
  record(response: LlmResponse): void;
  end(): void;
}

/**
 * The usage of one invocation as it runs, shared by every agent of it: model calls and their
 * tokens (by the name of the model that answered), tool calls, wall time. It checks the
 * budget before each model call and makes the rollups stored on final events.
 */
export class UsageTracker {
  readonly prices: PriceTable;
  readonly budget?: Budget;
  private readonly invocation = emptyRollup();
  private readonly sessionBeforeSource?: UsageRollup | (() => UsageRollup);
  private sessionBeforeValue?: UsageRollup;
  private readonly now: () => number;
  private readonly startedAt: number;

  constructor(options: UsageTrackerOptions = {}) {
    this.prices = options.prices ?? new PriceTable();
    if (options.budget) this.budget = options.budget;
    this.sessionBeforeSource = options.sessionBefore;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  /**
   * Throws `BudgetExceededError` when a limit of the budget is reached (invocation limits
   * first), or `ConfigurationError` when a cost limit is set and a model used has no price.
   */
  checkBeforeModelCall(agentName?: string, branch?: string): void {
    if (!this.budget) return;
    const scopes: [BudgetScope, UsageLimits | undefined, () => UsageRollup][] = [
      ["invocation", this.budget.invocation, () => this.invocationUsage()],
      ["session", this.budget.session, () => this.sessionUsage()],
    ];
    for (const [scope, limits, usage] of scopes) {
      if (!limits) continue;
      const used = usage();
      const fail = (kind: BudgetKind, limit: number, value: number) => {
        throw new BudgetExceededError({ kind, scope, limit, used: value, agentName, branch });
      };
      if (limits.maxModelCalls !== undefined && used.modelCalls >= limits.maxModelCalls)
        fail("modelCalls", limits.maxModelCalls, used.modelCalls);
      if (limits.maxTokens !== undefined && used.tokens.total >= limits.maxTokens)
        fail("tokens", limits.maxTokens, used.tokens.total);
      if (limits.maxCostUsd !== undefined) {
        if (used.costUsd === undefined) {
          throw new ConfigurationError(
            `The ${scope} budget limits cost (maxCostUsd) but these models have no ` +
              `price: ${(used.unpricedModels ?? []).join(", ")}. Add them to the price table (App or Runner option ` +
              `\`prices\`).`,
          );
        }
        if (used.costUsd >= limits.maxCostUsd) fail("costUsd", limits.maxCostUsd, used.costUsd);
      }
      if (limits.maxDurationMs !== undefined && used.durationMs >= limits.maxDurationMs)
        fail("durationMs", limits.maxDurationMs, used.durationMs);
    }
  }

  /** Starts a model call of `model`; responses naming another model (`agentkit:model`) count for that one. */
  startModelCall(model: string): ModelCallRecorder {
    return new ModelCall(this.invocation, model);
  }

  /** Counts the tool calls of a complete event (its function responses). */
  recordEvent(event: Event): void {
    if (event.partial || event.author === "user") return;
    this.invocation.toolCalls += countFunctionResponses(event);
  }

  /** True once a model or tool was called in this invocation (nested runs included). */
  get hasActivity(): boolean {
    return this.invocation.modelCalls > 0 || this.invocation.toolCalls > 0;
  }

  /** Adds the usage of a run made on this invocation's behalf (an `AgentTool`'s); its time is already ours. */
  addNested(rollup: UsageRollup): void {
    addRollup(this.invocation, { ...rollup, durationMs: 0 });
  }

  /** This invocation's usage so far, priced. */
  invocationUsage(): UsageRollup {
    const rollup = cloneRollup(this.invocation);
    rollup.durationMs = Math.max(0, this.now() - this.startedAt);
    return this.prices.priceRollup(rollup);
  }

  /** The session's usage so far (earlier invocations plus this one), priced. */
  sessionUsage(invocation: UsageRollup = this.invocationUsage()): UsageRollup {
    // The earlier total's cost fields are left out: pricing sets them again (in the same place,
    // after `models`), and removing one it has (a priced total, then an unpriced model) would
    // `delete` it, which puts the rollup, and the event that carries it, in V8's dictionary mode.
    const { costUsd: _cost, unpricedModels: _unpriced, ...before } = this.sessionBefore();
    const rollup = cloneRollup(before);
    addRollup(rollup, invocation);
    return this.prices.priceRollup(rollup);
  }

  private sessionBefore(): UsageRollup {
    const source = this.sessionBeforeSource;
    this.sessionBeforeValue ??= typeof source === "function" ? source() : (source ?? emptyRollup());
    return this.sessionBeforeValue;
  }

  /** What a final event carries: both rollups, frozen (see `frozenUsageSnapshot`). */
  snapshot(): UsageSnapshot {
    // One reading of the invocation for both (`addRollup` only reads it): the same duration.
    const invocation = this.invocationUsage();
    // A session with no earlier usage (its first invocation) has used what the invocation has.
    const session = isEmptyRollup(this.sessionBefore()) ? invocation : this.sessionUsage(invocation);
    return frozenUsageSnapshot(invocation, session);
  }
}

/** One model call's recorder (a class: no closures made per call). */
class ModelCall implements ModelCallRecorder {
  private counted = false;
  private readonly invocation: UsageRollup;
  private readonly model: string;

  constructor(invocation: UsageRollup, model: string) {
    this.invocation = invocation;
    this.model = model;
  }

  record(response: LlmResponse): void {
    if (response.partial) return; // streamed chunks repeat what the complete response reports
    const named = response.customMetadata?.[MODEL_METADATA_KEY];
    const answeredBy = typeof named === "string" && named !== "" ? named : this.model;
    addModelUsage(this.invocation, answeredBy, tokensOf(response.usageMetadata), this.counted ? 0 : 1);
    this.counted = true;
  }

  end(): void {
    if (!this.counted) addModelUsage(this.invocation, this.model, tokensOf(undefined), 1);
    this.counted = true;
  }
}
