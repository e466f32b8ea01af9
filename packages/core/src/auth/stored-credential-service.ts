import { CredentialStoreError } from "../errors/auth-errors.js";
import type { AuthCredential } from "./auth-credential.js";
import type { AuthConfig } from "./auth-config.js";
import { BaseCredentialService, credentialKeyOf, type CredentialContext } from "./base-credential-service.js";
import type { CredentialCipher } from "./credential-cipher.js";

/** Where one credential lives: app, user, credential key. */
export interface CredentialScope {
  appName: string;
  userId: string;
  credentialKey: string;
}

/**
 * Raw storage for `StoredCredentialService`: opaque strings (ciphertext) by scope. Backends
 * (SQLite, PostgreSQL, MongoDB in `@agentkit/sessions`) implement only this; encryption and
 * rotation stay in one place.
 */
export interface CredentialStore {
  get(scope: CredentialScope): Promise<string | undefined>;
  put(scope: CredentialScope, record: string): Promise<void>;
  delete(scope: CredentialScope): Promise<void>;
  close?(): Promise<void>;
}

/**
 * A persistent credential service: credentials encrypted with AES-256-GCM (`cipher`, bound to app,
 * user and key) in a `CredentialStore`, so any replica serves any user and a stolen database
 * holds only ciphertext. Refuses to start without a cipher. A record written with an older key
 * is rewritten with the primary key when read (key rotation).
 */
export class StoredCredentialService extends BaseCredentialService {
  readonly store: CredentialStore;
  private readonly cipher: CredentialCipher;

  constructor(options: { store: CredentialStore; cipher: CredentialCipher | undefined }) {
    super();
    if (!options.cipher) {
      throw new CredentialStoreError(
        "CREDENTIAL_KEY_REQUIRED",
        "A persistent credential store needs an encryption key: set AGENTKIT_CREDENTIAL_KEY to 32 random bytes in base64 (`openssl rand -base64 32`), or use InMemoryCredentialService.",
      );
    }
    this.store = options.store;
    this.cipher = options.cipher;
  }

  async loadCredential(authConfig: AuthConfig, context: CredentialContext): Promise<AuthCredential | undefined> {
    const scope = scopeOf(authConfig, context);
    const record = await this.store.get(scope);
    if (record === undefined) return undefined;
    const aad = aadOf(scope);
    const plaintext = this.cipher.decrypt(record, aad);
    if (this.cipher.needsRotation(record)) await this.store.put(scope, this.cipher.encrypt(plaintext, aad));
    return JSON.parse(plaintext) as AuthCredential;
  }

  async saveCredential(authConfig: AuthConfig, context: CredentialContext): Promise<void> {
    if (!authConfig.exchangedAuthCredential) return;
    const scope = scopeOf(authConfig, context);
    await this.store.put(scope, this.cipher.encrypt(JSON.stringify(authConfig.exchangedAuthCredential), aadOf(scope)));
  }

  async deleteCredential(authConfig: AuthConfig, context: CredentialContext): Promise<void> {
    await this.store.delete(scopeOf(authConfig, context));
  }

  override async close(): Promise<void> {
    await this.store.close?.();
  }
}

function scopeOf(authConfig: AuthConfig, context: CredentialContext): CredentialScope {
  return { appName: context.appName, userId: context.userId, credentialKey: credentialKeyOf(authConfig) };
}

function aadOf(scope: CredentialScope): string {
  return JSON.stringify([scope.appName, scope.userId, scope.credentialKey]);
}
