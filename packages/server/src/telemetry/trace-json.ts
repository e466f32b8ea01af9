import { cycleChecker } from "@agentkit/core/internal";

/** Longest inline-data payload kept verbatim in span attributes; bytes beyond are elided. */
const MAX_INLINE_DATA = 256;

/** Default longest JSON attribute kept whole (characters). */
export const DEFAULT_MAX_ATTRIBUTE_CHARS = 100_000;

/** `isCycle` (for a value with a cycle): an object inside itself becomes "<cycle>". */
function replacer(isCycle?: (holder: unknown, value: object) => boolean) {
  return function (this: unknown, key: string, v: unknown): unknown {
    if (typeof v === "function" || typeof v === "symbol") return undefined;
    if (typeof v === "bigint") return v.toString();
    if (typeof AbortSignal !== "undefined" && v instanceof AbortSignal) return undefined;
    if (key === "data" && typeof v === "string" && v.length > MAX_INLINE_DATA) return `<${v.length} base64 characters>`;
    if (isCycle && typeof v === "object" && v !== null && isCycle(this, v)) return "<cycle>";
    return v;
  };
}

/**
 * JSON text for a span attribute: functions and signals are left out, base64 blobs shortened,
 * and a value longer than `maxChars` is replaced by a small JSON object holding its head, so
 * the attribute always parses and memory stays bounded. Never throws.
 */
export function toJsonString(value: unknown, maxChars = DEFAULT_MAX_ATTRIBUTE_CHARS): string {
  let text: string;
  try {
    text = JSON.stringify(value, replacer()) ?? "null";
  } catch {
    // A cycle: repeat with each object inside itself written as "<cycle>".
    try {
      text = JSON.stringify(value, replacer(cycleChecker())) ?? "null";
    } catch {
      return '"<not serializable>"';
    }
  }
  if (text.length <= maxChars) return text;
  return truncatedJson(text.length, text, maxChars);
}

/** How much of a text longer than `maxChars` its truncated form keeps (room is left for the wrapper). */
export function headChars(maxChars: number): number {
  return Math.max(0, maxChars - 100);
}

/** The form of a JSON text of `length` characters cut to `maxChars`: its head (from `text`) and its length. */
export function truncatedJson(length: number, text: string, maxChars: number): string {
  return JSON.stringify({ truncated: true, length, head: text.slice(0, headChars(maxChars)) });
}
