import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { CredentialStoreError } from "../errors/auth-errors.js";

/** Environment variable holding the credential key: 32 random bytes, base64. */
export const CREDENTIAL_KEY_ENV = "AGENTKIT_CREDENTIAL_KEY";
/** Environment variable holding earlier keys (comma-separated), still read while records are rotated. */
export const CREDENTIAL_OLD_KEYS_ENV = "AGENTKIT_CREDENTIAL_OLD_KEYS";

const FORMAT = "v1";

interface CipherKey {
  id: string;
  bytes: Buffer;
}

/**
 * AES-256-GCM for credentials at rest. The first key encrypts; every key decrypts, so a key is
 * rotated by making the new one primary and listing the old one until every record was rewritten
 * (`needsRotation` tells which; `StoredCredentialService` rewrites a record when it reads it).
 * Each record is bound to its scope (additional authenticated data), so a ciphertext copied to
 * another user's or app's row does not decrypt.
 */
export class CredentialCipher {
  private readonly keys: CipherKey[];

  /** `keys`: 32-byte keys (Buffers, or base64 strings); the first one encrypts. */
  constructor(keys: readonly (string | Uint8Array)[]) {
    if (keys.length === 0) {
      throw new CredentialStoreError("CREDENTIAL_KEY_REQUIRED", "CredentialCipher needs at least one key.");
    }
    this.keys = keys.map((k, i) => toKey(k, i));
  }

  /**
   * The cipher from `AGENTKIT_CREDENTIAL_KEY` (and `AGENTKIT_CREDENTIAL_OLD_KEYS`), or `undefined`
   * when the variable is not set. A malformed key throws `CredentialStoreError`.
   */
  static fromEnv(env: Record<string, string | undefined> = process.env): CredentialCipher | undefined {
    const primary = env[CREDENTIAL_KEY_ENV]?.trim();
    if (!primary) return undefined;
    const old = (env[CREDENTIAL_OLD_KEYS_ENV] ?? "")
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean);
    return new CredentialCipher([primary, ...old]);
  }

  /** A fresh random key, base64 (for `AGENTKIT_CREDENTIAL_KEY`). */
  static generateKey(): string {
    return randomBytes(32).toString("base64");
  }

  /** Encrypts `plaintext` for `scope` with the primary key: `v1.<key id>.<iv>.<tag>.<ciphertext>`. */
  encrypt(plaintext: string, scope: string): string {
    const key = this.keys[0]!;
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key.bytes, iv);
    cipher.setAAD(Buffer.from(scope, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [FORMAT, key.id, iv.toString("base64url"), tag.toString("base64url"), body.toString("base64url")].join(".");
  }

  /** Decrypts a record written by `encrypt` for the same scope; throws `CREDENTIAL_DECRYPT_FAILED` otherwise. */
  decrypt(record: string, scope: string): string {
    const [format, keyId, iv, tag, body] = record.split(".");
    const key = this.keys.find((k) => k.id === keyId);
    if (format !== FORMAT || !key || iv === undefined || tag === undefined || body === undefined) {
      throw new CredentialStoreError(
        "CREDENTIAL_DECRYPT_FAILED",
        `A stored credential was encrypted with a key that is not configured (key id ${keyId ?? "?"}): add the old key to ${CREDENTIAL_OLD_KEYS_ENV}.`,
      );
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.bytes, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(scope, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    } catch (error) {
      throw new CredentialStoreError(
        "CREDENTIAL_DECRYPT_FAILED",
        "A stored credential failed authentication: it was altered or belongs to another scope.",
        { cause: error },
      );
    }
  }

  /** True when `record` was not written with the primary key (rewrite it to finish a rotation). */
  needsRotation(record: string): boolean {
    const keyId = record.split(".")[1] ?? "";
    const primary = Buffer.from(this.keys[0]!.id);
    const other = Buffer.from(keyId);
    return primary.length !== other.length || !timingSafeEqual(primary, other);
  }
}

function toKey(value: string | Uint8Array, index: number): CipherKey {
  const bytes = typeof value === "string" ? Buffer.from(value, "base64") : Buffer.from(value);
  if (bytes.length !== 32) {
    throw new CredentialStoreError(
      "CREDENTIAL_KEY_INVALID",
      `Credential key #${index + 1} must be 32 bytes (base64 of 32 random bytes, e.g. \`openssl rand -base64 32\`); it has ${bytes.length}.`,
    );
  }
  return { id: createHash("sha256").update(bytes).digest("hex").slice(0, 12), bytes };
}
