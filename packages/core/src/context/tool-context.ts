import type { EventActions, ToolConfirmation } from "../events/event-actions.js";
import { AgentKitError } from "../errors/agentkit-error.js";
import { CallbackContext } from "./callback-context.js";
import type { InvocationContext } from "./invocation-context.js";

/** The context a tool runs with: a callback context plus the call it answers. */
export class ToolContext extends CallbackContext {
  /** Id of the function call being executed. */
  readonly functionCallId?: string;
  /** The user's answer when this call was confirmed (re-run after `adk_request_confirmation`). */
  readonly toolConfirmation?: ToolConfirmation;

  constructor(
    invocationContext: InvocationContext,
    options: { functionCallId?: string; actions?: EventActions; toolConfirmation?: ToolConfirmation } = {},
  ) {
    super(invocationContext, options.actions);
    this.functionCallId = options.functionCallId;
    this.toolConfirmation = options.toolConfirmation;
  }

  /**
   * Asks the user to confirm this call. The flow then emits an `adk_request_confirmation`
   * call and pauses; the tool runs again with `toolConfirmation` set once the user answers.
   */
  requestConfirmation({ hint, payload }: { hint?: string; payload?: unknown } = {}): void {
    if (!this.functionCallId) {
      throw new AgentKitError(
        "CONFIRMATION_UNAVAILABLE",
        "requestConfirmation needs a function call id; it is only available inside a tool call.",
      );
    }
    const confirmation: ToolConfirmation = { confirmed: false };
    if (hint !== undefined) confirmation.hint = hint;
    if (payload !== undefined) confirmation.payload = payload;
    this.actions.requestedToolConfirmations[this.functionCallId] = confirmation;
  }
}
