import { ConfigurationError } from "../errors/agentkit-error.js";

/** Limits of one scope; each is optional (absent = no limit). */
export interface UsageLimits {
  /** Total tokens (`totalTokenCount` summed over model calls). */
  maxTokens?: number;
  /** Cost in USD from the price table; every model used must have a price. */
  maxCostUsd?: number;
  /** Model calls. */
  maxModelCalls?: number;
  /** Wall time in milliseconds (a session: the sum of its invocations). */
  maxDurationMs?: number;
}

/**
 * Usage limits checked before every model call: when the usage so far has reached a limit,
 * the call is not made and the run ends with a `BudgetExceededError`. A single model call can
 * overshoot a token or cost limit: the check is before the call, the usage is known after it.
 */
export interface Budget {
  /** Limits of one invocation (one `runAsync`). */
  invocation?: UsageLimits;
  /** Limits of the whole session (every invocation stored in it, this one included). */
  session?: UsageLimits;
}

const LIMIT_KEYS = ["maxTokens", "maxCostUsd", "maxModelCalls", "maxDurationMs"] as const;

/**
 * The budget of a run: the run's limits over the app's, field by field. Invalid values throw
 * `ConfigurationError` naming the field. Undefined when no limit is set.
 */
export function resolveBudget(...layers: (Budget | undefined)[]): Budget | undefined {
  const out: Budget = {};
  for (const layer of layers) {
    if (layer === undefined) continue;
    if (typeof layer !== "object" || layer === null)
      throw new ConfigurationError(`Invalid budget ${JSON.stringify(layer)}: expected { invocation?, session? }.`);
    for (const scope of ["invocation", "session"] as const) {
      const limits = layer[scope];
      if (limits === undefined) continue;
      const target = (out[scope] ??= {});
      for (const key of LIMIT_KEYS) {
        const value = limits[key];
        if (value === undefined) continue;
        if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
          throw new ConfigurationError(
            `Invalid budget: ${scope}.${key} must be a number of 0 or more (got ${JSON.stringify(value)}).`,
          );
        }
        target[key] = value;
      }
    }
  }
  return Object.keys(out.invocation ?? {}).length > 0 || Object.keys(out.session ?? {}).length > 0 ? out : undefined;
}
