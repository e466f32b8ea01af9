import { AgentKitError, type AgentKitErrorOptions } from "./agentkit-error.js";

/** What a budget limits. */
export type BudgetKind = "tokens" | "costUsd" | "modelCalls" | "durationMs";
/** Whose usage a limit applies to. */
export type BudgetScope = "invocation" | "session";

/** The error code of each limit kind. */
export const BUDGET_ERROR_CODES: Readonly<Record<BudgetKind, string>> = Object.freeze({
  tokens: "BUDGET_TOKENS_EXCEEDED",
  costUsd: "BUDGET_COST_EXCEEDED",
  modelCalls: "BUDGET_MODEL_CALLS_EXCEEDED",
  durationMs: "BUDGET_DURATION_EXCEEDED",
});

const UNITS: Readonly<Record<BudgetKind, (n: number) => string>> = {
  tokens: (n) => `${n} tokens`,
  costUsd: (n) => `$${Number(n.toPrecision(6))}`,
  modelCalls: (n) => `${n} model calls`,
  durationMs: (n) => `${n} ms`,
};

/**
 * A budget (`RunConfig.budget`, `App.budget`) was used up, so the next model call was not
 * made. `code` names the limit (`BUDGET_TOKENS_EXCEEDED`, `BUDGET_COST_EXCEEDED`,
 * `BUDGET_MODEL_CALLS_EXCEEDED`, `BUDGET_DURATION_EXCEEDED`); `used` is the usage at the check.
 */
export class BudgetExceededError extends AgentKitError {
  readonly kind: BudgetKind;
  readonly scope: BudgetScope;
  readonly limit: number;
  readonly used: number;
  /** The agent whose model call was refused. */
  readonly agentName?: string;
  readonly branch?: string;

  constructor(
    init: { kind: BudgetKind; scope: BudgetScope; limit: number; used: number; agentName?: string; branch?: string },
    options: AgentKitErrorOptions = {},
  ) {
    const unit = UNITS[init.kind];
    super(
      BUDGET_ERROR_CODES[init.kind],
      `The ${init.scope} budget of ${unit(init.limit)} is used up (${unit(init.used)} so far), so no further model ` +
        `call is made. Raise the ${init.scope} limit in RunConfig.budget or ` +
        `App.budget${init.scope === "session" ? ", or start a new session" : ""}.`,
      options,
    );
    this.kind = init.kind;
    this.scope = init.scope;
    this.limit = init.limit;
    this.used = init.used;
    if (init.agentName !== undefined) this.agentName = init.agentName;
    if (init.branch !== undefined) this.branch = init.branch;
  }
}
