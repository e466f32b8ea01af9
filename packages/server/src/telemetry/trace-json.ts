/** Longest inline-data payload kept verbatim in span attributes; bytes beyond are elided. */
const MAX_INLINE_DATA = 256;

/** Default longest JSON attribute kept whole (characters). */
export const DEFAULT_MAX_ATTRIBUTE_CHARS = 100_000;

/**
 * `ancestors`: the objects from the root to the one being written, for a value with a cycle. An
 * object inside itself becomes "<cycle>"; one met again elsewhere (stored events share equal
 * frozen parts) is written again, as JSON.stringify writes it.
 */
function replacer(ancestors?: object[]) {
  return function (this: unknown, key: string, v: unknown): unknown {
    if (typeof v === "function" || typeof v === "symbol") return undefined;
    if (typeof v === "bigint") return v.toString();
    if (typeof AbortSignal !== "undefined" && v instanceof AbortSignal) return undefined;
    if (key === "data" && typeof v === "string" && v.length > MAX_INLINE_DATA) return `<${v.length} base64 characters>`;
    if (ancestors && typeof v === "object" && v !== null) {
      // JSON.stringify calls the replacer with the holder as `this`: what is above it is written.
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
      if (ancestors.includes(v)) return "<cycle>";
      ancestors.push(v);
    }
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
      text = JSON.stringify(value, replacer([])) ?? "null";
    } catch {
      return '"<not serializable>"';
    }
  }
  if (text.length <= maxChars) return text;
  return JSON.stringify({ truncated: true, length: text.length, head: text.slice(0, Math.max(0, maxChars - 100)) });
}
