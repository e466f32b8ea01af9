import type { Part } from "../content/content.js";
import type { EventActions, ToolConfirmation } from "../events/event-actions.js";
import type { Event } from "../events/event.js";
import { AgentKitError } from "../errors/agentkit-error.js";
import { CallbackContext } from "./callback-context.js";
import type { InvocationContext } from "./invocation-context.js";
import type { AuthCredential } from "../auth/auth-credential.js";
import { redactAuthConfig, withCredentialKey, type AuthConfig } from "../auth/auth-config.js";
import {
  defaultCredentialDependencies,
  rememberRequestedAuthConfig,
  resolveCredential,
  type CredentialDependencies,
} from "../auth/credential-manager.js";

/**
 * A tool call that paused because something it runs waits for the client (an agent tool whose
 * agent asked for a confirmation or input): the flow shows the client `requests` and ends the
 * turn; when the client answers, the call runs again with `resumedCall` set.
 */
export interface ToolSuspension {
  /** The events holding the calls the client must answer (only those calls are shown). */
  requests: Event[];
  /** What the tool needs to continue (JSON); stored in the session with the requests. */
  checkpoint: unknown;
}

/** A suspended call running again: its checkpoint and the client's answers to its requests. */
export interface ResumedToolCall {
  checkpoint: unknown;
  /** The `functionResponse` parts of the client's message that answer the call's requests. */
  answers: Part[];
}

/** The context a tool runs with: a callback context plus the call it answers. */
export class ToolContext extends CallbackContext {
  /** Id of the function call being executed. */
  readonly functionCallId?: string;
  /** The user's answer when this call was confirmed (re-run after `adk_request_confirmation`). */
  readonly toolConfirmation?: ToolConfirmation;
  /** Set when this call continues after a suspension (see `suspend`). */
  readonly resumedCall?: ResumedToolCall;
  /** @internal Set by `suspend`. */
  suspension?: ToolSuspension;

  constructor(
    invocationContext: InvocationContext,
    options: {
      functionCallId?: string;
      actions?: EventActions;
      toolConfirmation?: ToolConfirmation;
      resumedCall?: ResumedToolCall;
    } = {},
  ) {
    super(invocationContext, options.actions);
    this.functionCallId = options.functionCallId;
    this.toolConfirmation = options.toolConfirmation;
    if (options.resumedCall) this.resumedCall = options.resumedCall;
  }

  /**
   * Pauses this call until the client answers the calls in `requests` (which something the tool
   * runs made, e.g. an agent tool's agent): the flow shows them to the client under this agent,
   * stores `checkpoint` with them, and ends the turn. The answer runs the call again with
   * `resumedCall`. What the tool returns after suspending is ignored.
   */
  suspend(suspension: ToolSuspension): void {
    if (!this.functionCallId)
      throw new AgentKitError(
        "SUSPEND_UNAVAILABLE",
        "suspend needs a function call id; it is only available inside a tool call.",
      );
    this.suspension = suspension;
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

  /**
   * Asks the user for a credential (OAuth2 consent, an API key...). The flow then emits an
   * `adk_request_credential` call and pauses; once the user answers, the flow exchanges and
   * stores the credential and runs this call again, where `getCredential` returns it.
   *
   * A tool that runs its own OAuth client (keeping the PKCE verifier itself) passes the
   * authorization URL it built in `exchangedAuthCredential.oauth2.authUri`: the flow then checks
   * the answer's `state` and stores the authorization code (`oauth2.authCode`) for the tool to redeem.
   */
  requestCredential(authConfig: AuthConfig): void {
    if (!this.functionCallId) {
      throw new AgentKitError(
        "CREDENTIAL_REQUEST_UNAVAILABLE",
        "requestCredential needs a function call id; it is only available inside a tool call.",
      );
    }
    const config = withCredentialKey(authConfig);
    // Events carry a copy without secrets; the flow reads the full config from process memory.
    rememberRequestedAuthConfig(this.invocationContext.session, this.functionCallId, config);
    this.actions.requestedAuthConfigs[this.functionCallId] = redactAuthConfig(config);
  }

  /**
   * The credential for `authConfig` this user can use now (refreshed when it was about to expire,
   * exchanged when no user is needed), or `undefined`: then call `requestCredential`.
   */
  async getCredential(authConfig: AuthConfig): Promise<AuthCredential | undefined> {
    return resolveCredential(authConfig, this, this.credentialDependencies());
  }

  /** ADK's name for `getCredential`. */
  async getAuthResponse(authConfig: AuthConfig): Promise<AuthCredential | undefined> {
    return this.getCredential(authConfig);
  }

  /** Forgets this user's stored credential (e.g. the API answered 401: the token was revoked). */
  async deleteCredential(authConfig: AuthConfig): Promise<void> {
    await this.credentialDependencies().credentialService.deleteCredential(withCredentialKey(authConfig), this);
  }

  private credentialDependencies(): CredentialDependencies {
    const ctx = this.invocationContext;
    const defaults = defaultCredentialDependencies();
    return {
      credentialService: ctx.credentialService ?? defaults.credentialService,
      exchangers: ctx.credentialExchangers ?? defaults.exchangers,
      signal: ctx.signal,
    };
  }
}
