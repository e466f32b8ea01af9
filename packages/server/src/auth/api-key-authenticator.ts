import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { ConfigurationError } from "@agentkit/core";
import { AuthenticationError } from "./auth-errors.js";
import { checkedPrincipal, type Authenticator } from "./authenticator.js";
import { bearerTokenOf } from "./bearer-token.js";
import type { Principal } from "./principal.js";

/** One API key and the principal it stands for. */
export interface ApiKeyEntry {
  key: string;
  userId: string;
  scopes?: readonly string[];
}

export interface ApiKeyAuthOptions {
  /** Entries given in code. */
  entries?: Iterable<ApiKeyEntry>;
  /** Entries as text: one `<key> <userId> [scope…]` per line; `#` comments and blank lines allowed. */
  text?: string;
  /** A file holding entries as in `text`. */
  file?: string;
  /** Where `text` came from, for error messages (e.g. `AGENTKIT_API_KEYS`). */
  source?: string;
  /** In `text`, `;` separates entries too (for an environment variable). Default false. */
  semicolons?: boolean;
}

/** Shortest key accepted: a guessable key is no protection. */
export const MIN_API_KEY_LENGTH = 16;

interface StoredKey {
  digest: Buffer;
  principal: Principal;
}

/**
 * Static API keys sent as `Authorization: Bearer <key>`. Only SHA-256 digests of the keys are
 * kept; a presented key is hashed and compared with every stored digest in constant time (no
 * early exit, so timing tells nothing about which entry matched). The raw keys are dropped
 * once parsed and never appear in errors or logs (an entry is named by its line number).
 */
export function apiKeyAuthenticator(options: ApiKeyAuthOptions): Authenticator {
  const stored: StoredKey[] = [];
  const add = (entry: ApiKeyEntry, where: string) => {
    const problem = entryProblem(entry);
    if (problem) throw new ConfigurationError(`API keys: ${where}: ${problem}`);
    const digest = sha256(entry.key);
    const same = stored.findIndex((s) => timingSafeEqual(s.digest, digest));
    if (same >= 0)
      throw new ConfigurationError(
        `API keys: ${where}: the same key as ${String(stored[same]!.principal.claims?.entry)}`,
      );
    const principal = checkedPrincipal({
      userId: entry.userId,
      scopes: [...(entry.scopes ?? [])],
      claims: { auth: "api-key", entry: where },
    })!;
    stored.push({ digest, principal });
  };
  let index = 0;
  for (const entry of options.entries ?? []) add(entry, `entry ${++index}`);
  if (options.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.file, "utf8");
    } catch (error) {
      throw new ConfigurationError(`API keys: cannot read ${options.file}: ${(error as Error).message}`);
    }
    for (const { entry, where } of parseApiKeyText(text, options.file, false)) add(entry, where);
  }
  if (options.text !== undefined) {
    const source = options.source ?? "text";
    for (const { entry, where } of parseApiKeyText(options.text, source, options.semicolons ?? false))
      add(entry, where);
  }
  if (stored.length === 0) throw new ConfigurationError("API keys: no entries (expected `<key> <userId> [scope…]`).");

  return (req) => {
    const token = bearerTokenOf(req);
    if (token === undefined) return undefined;
    const digest = sha256(token);
    let found: Principal | undefined;
    for (const s of stored) if (timingSafeEqual(s.digest, digest)) found = s.principal;
    if (!found) throw new AuthenticationError("invalid", "no API key matches");
    return found;
  };
}

/**
 * Entries of API-key text with where each came from (`<source> line 3`). A bad line is a
 * `ConfigurationError` naming the line, never showing its content (it holds a key).
 */
export function parseApiKeyText(
  input: string,
  source: string,
  semicolons: boolean,
): { entry: ApiKeyEntry; where: string }[] {
  const out: { entry: ApiKeyEntry; where: string }[] = [];
  const lines = input.split(/\r?\n/);
  lines.forEach((line, i) => {
    const pieces = semicolons ? line.split(";") : [line];
    pieces.forEach((piece, j) => {
      const where = `${source} line ${i + 1}${pieces.length > 1 ? ` entry ${j + 1}` : ""}`;
      const content = piece.trim();
      if (content === "" || content.startsWith("#")) return;
      const [key, userId, ...scopes] = content.split(/\s+/);
      if (!userId) throw new ConfigurationError(`API keys: ${where}: expected "<key> <userId> [scope…]" (no user id).`);
      out.push({ entry: { key: key!, userId, scopes }, where });
    });
  });
  return out;
}

function entryProblem(entry: ApiKeyEntry): string | undefined {
  if (typeof entry.key !== "string" || !/^[\x21-\x7e]+$/.test(entry.key))
    return "the key must be printable ASCII without spaces.";
  if (entry.key.length < MIN_API_KEY_LENGTH) return `the key is shorter than ${MIN_API_KEY_LENGTH} characters.`;
  if (typeof entry.userId !== "string" || entry.userId === "" || /\s/.test(entry.userId))
    return "the user id must be a non-empty string without spaces.";
  if (
    entry.scopes !== undefined &&
    (!Array.isArray(entry.scopes) || entry.scopes.some((s) => typeof s !== "string" || s === ""))
  )
    return "scopes must be non-empty strings.";
  return undefined;
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
