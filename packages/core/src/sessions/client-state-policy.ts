import { CODE_EXECUTION_CONTEXT_KEY } from "../code-executors/code-executor-context.js";
import { AgentKitError } from "../errors/agentkit-error.js";
import { APP_PREFIX, TEMP_PREFIX } from "./state.js";

/** Prefixes of state keys the framework keeps for itself (no client may write them). */
export const INTERNAL_STATE_PREFIXES: readonly string[] = ["_adk", "_agentkit"];

/** True for the framework's own bookkeeping keys (e.g. the code executor's execution id). */
export function isInternalStateKey(key: string): boolean {
  return key === CODE_EXECUTION_CONTEXT_KEY || INTERNAL_STATE_PREFIXES.some((p) => key.startsWith(p));
}

/** A client tried to write state keys it may not write (HTTP 400, or 403 for `app:` keys). */
export class StateKeyNotAllowedError extends AgentKitError {
  readonly key: string;

  constructor(code: "INVALID_STATE_KEY" | "STATE_KEY_FORBIDDEN", key: string, message: string) {
    super(code, message);
    this.key = key;
  }
}

export interface ClientStatePolicy {
  /**
   * May this client write `app:` keys (state shared by every user of the app)? A server without
   * authentication allows it (its one user is the developer); with authentication only admins.
   */
  allowAppState: boolean;
  /**
   * Refuse `temp:` keys (default). A session's initial state may carry them: the session service
   * drops them before anything runs (ADK's behaviour), so nothing can be smuggled that way.
   */
  refuseTempKeys?: boolean;
}

/**
 * Checks state a client sends (a run's `stateDelta`, a session's initial state, a state patch,
 * imported events' deltas): session keys (no prefix) and `user:` keys are the client's own;
 * `temp:` keys live inside one invocation and are never taken from a client; the framework's
 * internal keys (`_code_execution_context`, `_adk…`, `_agentkit…`) are never client-writable;
 * `app:` keys only with `allowAppState`. Throws `StateKeyNotAllowedError` naming the key.
 */
export function checkClientState(
  state: Record<string, unknown>,
  policy: ClientStatePolicy,
  field = "stateDelta",
): void {
  for (const key of Object.keys(state)) {
    if (key.startsWith(TEMP_PREFIX)) {
      if (policy.refuseTempKeys === false) continue;
      throw new StateKeyNotAllowedError(
        "INVALID_STATE_KEY",
        key,
        `${field}: "${key}" is a temp: key; temp: state exists only inside one invocation and cannot be set by a ` +
          `client.`,
      );
    }
    if (isInternalStateKey(key)) {
      throw new StateKeyNotAllowedError(
        "INVALID_STATE_KEY",
        key,
        `${field}: "${key}" is reserved for the framework's own bookkeeping and cannot be set by a client.`,
      );
    }
    if (key.startsWith(APP_PREFIX) && !policy.allowAppState) {
      throw new StateKeyNotAllowedError(
        "STATE_KEY_FORBIDDEN",
        key,
        `${field}: "${key}" is app: state, shared by every user of the app; only an admin may write it.`,
      );
    }
  }
}
