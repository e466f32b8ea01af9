import type { ReadonlyContext } from "../context/readonly-context.js";
import type { AuthCredential } from "./auth-credential.js";
import { withCredentialKey, type AuthConfig } from "./auth-config.js";

/**
 * What a credential service is handed with a config: the context of the tool or flow step (its
 * app, user and state). Services that keep credentials in session state write through it (a
 * `CallbackContext` or `ToolContext`).
 */
export type CredentialContext = ReadonlyContext;

/**
 * Stores users' credentials (ADK's `BaseCredentialService`), scoped per app, user and
 * `authConfig.credentialKey`: one user's credential is never returned for another.
 */
export abstract class BaseCredentialService {
  /** The stored credential for this config and the context's user, or `undefined`. */
  abstract loadCredential(authConfig: AuthConfig, context: CredentialContext): Promise<AuthCredential | undefined>;
  /** Stores `authConfig.exchangedAuthCredential` for the context's user. */
  abstract saveCredential(authConfig: AuthConfig, context: CredentialContext): Promise<void>;
  /** Forgets the credential (revoked, or a refresh failed). */
  abstract deleteCredential(authConfig: AuthConfig, context: CredentialContext): Promise<void>;
  /** Releases connections the service owns. */
  async close(): Promise<void> {}
}

/** The storage key of a config (its `credentialKey`, derived when absent). */
export function credentialKeyOf(authConfig: AuthConfig): string {
  return withCredentialKey(authConfig).credentialKey;
}

/** Credentials in process memory (one process only: tests, single-replica development). */
export class InMemoryCredentialService extends BaseCredentialService {
  private readonly credentials = new Map<string, AuthCredential>();

  async loadCredential(authConfig: AuthConfig, context: CredentialContext): Promise<AuthCredential | undefined> {
    const found = this.credentials.get(this.key(authConfig, context));
    return found ? structuredClone(found) : undefined;
  }

  async saveCredential(authConfig: AuthConfig, context: CredentialContext): Promise<void> {
    if (!authConfig.exchangedAuthCredential) return;
    this.credentials.set(this.key(authConfig, context), structuredClone(authConfig.exchangedAuthCredential));
  }

  async deleteCredential(authConfig: AuthConfig, context: CredentialContext): Promise<void> {
    this.credentials.delete(this.key(authConfig, context));
  }

  private key(authConfig: AuthConfig, context: CredentialContext): string {
    return JSON.stringify([context.appName, context.userId, credentialKeyOf(authConfig)]);
  }
}
