import { InvalidSessionKeyError } from "../errors/session-errors.js";

/**
 * Longest app name, user id or session id, in bytes of UTF-8. ADK's database session service
 * stores each in a 128-character column; UUIDs (36), ADK's eval ids (`___eval___session___` +
 * a UUID, 56) and e-mail addresses as user ids fit with room to spare.
 */
export const MAX_SESSION_KEY_BYTES = 128;

/** Which part of a session key a value is, for messages. */
export type SessionKeyField = "appName" | "userId" | "sessionId";

// C0 and C1 control characters and DEL: NUL truncates strings in C APIs, the rest corrupts logs.
const CONTROL = /\p{Cc}/u;
// In a `u` regex a well-formed pair is one code point, so only lone surrogates match.
const LONE_SURROGATE = /\p{Cs}/u;
// `.` or `..` as a whole segment between `/` or `\` separators (or the ends).
const DOT_SEGMENT = /(?:^|[/\\])\.\.?(?=[/\\]|$)/;
// `/x`, `\x`, `\\server\x`, `C:\x`, `C:/x`.
const ABSOLUTE = /^(?:[/\\]|[A-Za-z]:[/\\])/;
// Keys every rule accepts at a glance (ids, UUIDs, e-mail addresses): printable ASCII without
// separators (one byte each, so at most 128 bytes), not "." or "..". Checked first because
// every run validates its keys several times.
const PLAIN_KEY = /^(?!\.\.?$)[\w.\-:@+]{1,128}$/;

/**
 * The rules shared by session keys and artifact filenames: what is wrong with `value` (a
 * non-empty string), or `undefined`. Lone surrogates (no UTF-8 form: two such names would
 * collide in any store), more than `maxBytes` bytes of UTF-8, control characters, absolute
 * paths, and `.` or `..` as the whole name or as a segment between `/` or `\` (reserved: URL
 * and path normalisation remove them). `/` itself is allowed.
 */
export function nameProblem(value: string, maxBytes: number): string | undefined {
  if (LONE_SURROGATE.test(value)) return "contains a lone UTF-16 surrogate (not valid Unicode)";
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > maxBytes) return `is ${bytes} bytes of UTF-8; at most ${maxBytes} are allowed`;
  if (CONTROL.test(value)) return "contains a control character (NUL, newline, …)";
  if (ABSOLUTE.test(value)) return "is an absolute path";
  if (DOT_SEGMENT.test(value)) {
    return 'is or contains a "." or ".." segment';
  }
  return undefined;
}

/**
 * What is wrong with one part of a session key (app name, user id or session id), or
 * `undefined` when it is acceptable. The one rule set every session backend, the artifact
 * backends (for their scope) and the server apply: a non-empty string of at most
 * `MAX_SESSION_KEY_BYTES` bytes of UTF-8, with nothing `nameProblem` refuses. Anything else
 * is allowed, including `/` inside, spaces, non-ASCII letters and names such as `__proto__`.
 */
export function sessionKeyProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return `must be a string, got ${value === null ? "null" : typeof value}`;
  if (value.length === 0) return "must not be empty";
  if (PLAIN_KEY.test(value)) return undefined;
  return nameProblem(value, MAX_SESSION_KEY_BYTES);
}

/** Throws `InvalidSessionKeyError` (`INVALID_SESSION_KEY`) unless `value` is a valid key part. */
export function validateSessionKeyPart(value: unknown, field: SessionKeyField): asserts value is string {
  // A run checks the same app name, user id and session id at every step: the value last
  // accepted for a field passes again without the regular expressions (strings cannot change).
  if (value === lastAccepted[field]) return;
  const problem = sessionKeyProblem(value);
  if (problem !== undefined) {
    throw new InvalidSessionKeyError(field, `Invalid ${field} ${preview(value)}: it ${problem}.`);
  }
  lastAccepted[field] = value as string;
}

/** The value `validateSessionKeyPart` last accepted for each field. */
const lastAccepted: Record<SessionKeyField, string | undefined> = {
  appName: undefined,
  userId: undefined,
  sessionId: undefined,
};

/** Validates an app name, user id and (when given) session id; see `sessionKeyProblem`. */
export function validateSessionKey(key: { appName: unknown; userId: unknown; sessionId?: unknown }): void {
  validateSessionKeyPart(key.appName, "appName");
  validateSessionKeyPart(key.userId, "userId");
  if (key.sessionId !== undefined) validateSessionKeyPart(key.sessionId, "sessionId");
}

/** A value for an error message: JSON-quoted, control characters escaped, long values cut. */
export function preview(value: unknown): string {
  if (typeof value !== "string") return String(value);
  // Cut before splitting into code points: the value may be megabytes long.
  const chars = Array.from(value.slice(0, 130).replace(/\p{Cs}/gu, "\uFFFD"));
  return JSON.stringify(chars.length > 64 ? `${chars.slice(0, 64).join("")}…` : chars.join(""));
}
