import type { BaseAgent } from "../agents/base-agent.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { Event } from "../events/event.js";
import type { ContextCacheConfig } from "../models/llm-request.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { ResumabilityConfig } from "../context/invocation-context.js";
import type { BasePlugin } from "../plugins/base-plugin.js";
import { resolveBudget, type Budget } from "../usage/budget.js";
import { PriceTable, type ModelPrice } from "../usage/price-table.js";

/** Turns a run of events into one compaction event (see `EventsCompactionConfig`). */
export interface EventsSummarizer {
  /** The compaction event for these events, or `undefined` to skip this round. */
  maybeSummarizeEvents(args: { events: Event[]; signal?: AbortSignal }): Promise<Event | undefined>;
}

/**
 * Compaction of session history, so prompts stay bounded as a session grows. After every
 * `compactionInterval` new invocations a summary event (`actions.compaction`) replaces older
 * events in model requests (the session keeps them all). Two compactors:
 * - sliding window (default): the new invocations, plus `overlapSize` earlier ones, are
 *   summarized into one more summary;
 * - tail retention (`eventRetentionSize` set): everything but the last `eventRetentionSize`
 *   events is folded, with the previous summary, into one summary that supersedes it.
 */
export interface EventsCompactionConfig {
  /** Compact after this many new invocations (at least 1). */
  compactionInterval: number;
  /** Sliding window: earlier invocations to include again in each window (default 0). */
  overlapSize?: number;
  /** Tail retention: the most recent events kept verbatim (0 or more); selects that compactor. */
  eventRetentionSize?: number;
  /**
   * Makes the summary. Without one, an `LlmEventSummarizer` on the root agent's own model is
   * used (as ADK does); a root that is not an LlmAgent then compacts nothing. A summarizer
   * error never fails the run: `runAsync` yields an unstored event with `errorCode`
   * `EVENTS_COMPACTION_FAILED` after the run's own events, and a later run tries again.
   */
  summarizer?: EventsSummarizer;
}

export interface AppOptions {
  /** The application name: letters, digits and underscores, not starting with a digit; not `user`. */
  name: string;
  rootAgent: BaseAgent;
  plugins?: BasePlugin[];
  eventsCompactionConfig?: EventsCompactionConfig;
  contextCacheConfig?: ContextCacheConfig;
  /** Resolves string model names of the app's agents. */
  modelRegistry?: ModelRegistry;
  /** Default usage limits of every run (a run's `RunConfig.budget` wins field by field). */
  budget?: Budget;
  /** Model prices for usage costs: a table, or prices over the shipped ones (`DEFAULT_MODEL_PRICES`). */
  prices?: PriceTable | Record<string, ModelPrice>;
  /**
   * `{ isResumable: true }`: a run that pauses anywhere in a tree of workflows, workflow agents and
   * agent tools is checkpointed in the session and continues where it stopped when the answer
   * arrives; an interrupted run can be resumed (`runner.resume`). See docs/workflows.md.
   */
  resumability?: ResumabilityConfig;
}

const APP_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An application: a root agent plus the app-wide settings a `Runner` applies. */
export class App {
  readonly name: string;
  readonly rootAgent: BaseAgent;
  readonly plugins: BasePlugin[];
  readonly eventsCompactionConfig?: EventsCompactionConfig;
  readonly contextCacheConfig?: ContextCacheConfig;
  readonly modelRegistry?: ModelRegistry;
  readonly budget?: Budget;
  readonly prices: PriceTable;
  readonly resumability?: ResumabilityConfig;

  constructor(options: AppOptions) {
    validateAppName(options.name);
    if (!options.rootAgent) throw new ConfigurationError(`App "${options.name}" needs a rootAgent.`);
    const compaction = options.eventsCompactionConfig;
    if (compaction) {
      if (!Number.isInteger(compaction.compactionInterval) || compaction.compactionInterval < 1) {
        throw new ConfigurationError(
          `App "${options.name}": eventsCompactionConfig.compactionInterval must be an integer of at least 1.`,
        );
      }
      if (
        compaction.overlapSize !== undefined &&
        (!Number.isInteger(compaction.overlapSize) || compaction.overlapSize < 0)
      ) {
        throw new ConfigurationError(
          `App "${options.name}": eventsCompactionConfig.overlapSize must be an integer of 0 or more.`,
        );
      }
      if (
        compaction.eventRetentionSize !== undefined &&
        (!Number.isInteger(compaction.eventRetentionSize) || compaction.eventRetentionSize < 0)
      ) {
        throw new ConfigurationError(
          `App "${options.name}": eventsCompactionConfig.eventRetentionSize must be an integer of 0 or more.`,
        );
      }
      if (compaction.eventRetentionSize !== undefined && compaction.overlapSize) {
        throw new ConfigurationError(
          `App "${options.name}": eventsCompactionConfig takes overlapSize (sliding window) or eventRetentionSize ` +
            `(tail retention), not both.`,
        );
      }
    }
    this.name = options.name;
    this.rootAgent = options.rootAgent;
    this.plugins = [...(options.plugins ?? [])];
    this.eventsCompactionConfig = compaction;
    this.contextCacheConfig = options.contextCacheConfig;
    this.modelRegistry = options.modelRegistry;
    const budget = resolveBudget(options.budget);
    if (budget) this.budget = budget;
    this.prices = PriceTable.from(options.prices);
    if (options.resumability !== undefined) {
      if (typeof options.resumability !== "object" || typeof options.resumability.isResumable !== "boolean")
        throw new ConfigurationError(`App "${options.name}": resumability must be { isResumable: boolean }.`);
      this.resumability = { isResumable: options.resumability.isResumable };
    }
  }
}

/** Throws `ConfigurationError` unless the name is a valid app name. */
export function validateAppName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !APP_NAME_PATTERN.test(name)) {
    throw new ConfigurationError(
      `Invalid app name ${JSON.stringify(name)}: use letters, digits and underscores, starting with a letter or ` +
        `underscore (it must be an identifier).`,
    );
  }
  if (name === "user") throw new ConfigurationError('An app cannot be named "user": that name is reserved.');
}
