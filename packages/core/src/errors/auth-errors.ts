import { AgentKitError, type AgentKitErrorOptions } from "./agentkit-error.js";

/**
 * A credential could not be obtained: a code or token exchange, a refresh or an authorization
 * response failed. `code` says which (`CREDENTIAL_EXCHANGE_FAILED`, `CREDENTIAL_REFRESH_FAILED`,
 * `AUTH_RESPONSE_INVALID`, `AUTH_STATE_MISMATCH`, `AUTH_SCHEME_UNSUPPORTED`). Messages never carry
 * a secret: providers' error bodies are reduced to their `error` / `error_description` fields.
 */
export class CredentialError extends AgentKitError {
  constructor(code: string, message: string, options: AgentKitErrorOptions = {}) {
    super(code, message, options);
  }
}

/**
 * Stored credentials could not be encrypted or decrypted: no key is configured for a persistent
 * store (`CREDENTIAL_KEY_REQUIRED`), the key is malformed (`CREDENTIAL_KEY_INVALID`), or a stored
 * record was written with a key that is no longer configured or was tampered with
 * (`CREDENTIAL_DECRYPT_FAILED`).
 */
export class CredentialStoreError extends AgentKitError {
  constructor(code: string, message: string, options: AgentKitErrorOptions = {}) {
    super(code, message, options);
  }
}
