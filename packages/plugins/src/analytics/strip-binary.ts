import type { Content } from "@agentkit/core";
import { setOwn } from "@agentkit/core/internal";

/** Whether a value looks like a Content (role and parts). */
export function isContent(value: unknown): value is Content {
  return typeof value === "object" && value !== null && Array.isArray((value as Content).parts);
}

/** Replaces inline bytes by their mime type and size (deep, without changing the input). */
export function stripBinary(value: unknown, ancestors: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value !== "object" || value === null) return value;
  // A cycle (an object inside itself) is cut here (and by safeStringify) instead of overflowing
  // the stack. An object met again elsewhere is not one: stored events share equal frozen parts.
  if (ancestors.has(value)) return "[Circular]";
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => stripBinary(v, ancestors));
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      // An own key, also `__proto__` (plain assignment would re-parent the copy instead).
      if (key === "inlineData" && typeof v === "object" && v !== null) setOwn(out, key, inlineSummary(v));
      else setOwn(out, key, stripBinary(v, ancestors));
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

/** What stands for inline bytes when they are not logged: their mime type and size. */
export function inlineSummary(inline: { mimeType?: string; data?: string }): Record<string, unknown> {
  return { mimeType: inline.mimeType, bytes: Math.floor(((inline.data?.length ?? 0) * 3) / 4), omitted: true };
}
