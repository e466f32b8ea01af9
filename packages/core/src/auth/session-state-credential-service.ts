import { CallbackContext } from "../context/callback-context.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { AuthCredential } from "./auth-credential.js";
import type { AuthConfig } from "./auth-config.js";
import { BaseCredentialService, credentialKeyOf, type CredentialContext } from "./base-credential-service.js";
import type { CredentialCipher } from "./credential-cipher.js";

/** State key prefix of credentials kept in session state (internal: no client may write it). */
export const CREDENTIAL_STATE_PREFIX = "_agentkit_credential:";

/**
 * Credentials in the session's own state (ADK's `SessionStateCredentialService`): scoped to one
 * session, stored wherever the session is, and gone with it. State changes travel in events'
 * `stateDelta`, so values are encrypted with `cipher` (bound to app, user, session and key): an
 * event, a session export or the dev UI shows only ciphertext.
 */
export class SessionStateCredentialService extends BaseCredentialService {
  private readonly cipher: CredentialCipher;

  constructor(options: { cipher: CredentialCipher }) {
    super();
    if (!options?.cipher) {
      throw new ConfigurationError(
        "SessionStateCredentialService needs a cipher: session state is stored in events, and credentials are never stored there in plaintext (CredentialCipher.fromEnv()).",
      );
    }
    this.cipher = options.cipher;
  }

  async loadCredential(authConfig: AuthConfig, context: CredentialContext): Promise<AuthCredential | undefined> {
    const stored = context.state.get(this.stateKey(authConfig));
    if (typeof stored !== "string" || stored === "") return undefined;
    return JSON.parse(this.cipher.decrypt(stored, this.scope(authConfig, context))) as AuthCredential;
  }

  async saveCredential(authConfig: AuthConfig, context: CredentialContext): Promise<void> {
    if (!authConfig.exchangedAuthCredential) return;
    const record = this.cipher.encrypt(
      JSON.stringify(authConfig.exchangedAuthCredential),
      this.scope(authConfig, context),
    );
    writable(context).state.set(this.stateKey(authConfig), record);
  }

  async deleteCredential(authConfig: AuthConfig, context: CredentialContext): Promise<void> {
    if (context.state.has(this.stateKey(authConfig))) writable(context).state.set(this.stateKey(authConfig), "");
  }

  private stateKey(authConfig: AuthConfig): string {
    return `${CREDENTIAL_STATE_PREFIX}${credentialKeyOf(authConfig)}`;
  }

  private scope(authConfig: AuthConfig, context: CredentialContext): string {
    return JSON.stringify([context.appName, context.userId, context.session.id, credentialKeyOf(authConfig)]);
  }
}

function writable(context: CredentialContext): CallbackContext {
  if (context instanceof CallbackContext) return context;
  throw new ConfigurationError("SessionStateCredentialService writes through a tool or callback context.");
}
