import { createHash, randomBytes } from "node:crypto";

/** A random URL-safe value (state, nonce, PKCE verifier): 32 bytes of entropy. */
export function randomUrlSafe(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** PKCE (RFC 7636) S256 challenge of a verifier. */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}
