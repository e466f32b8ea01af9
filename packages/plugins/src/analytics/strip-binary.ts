import type { Content } from "@agentkit/core";

/** Whether a value looks like a Content (role and parts). */
export function isContent(value: unknown): value is Content {
  return typeof value === "object" && value !== null && Array.isArray((value as Content).parts);
}

/** Replaces inline bytes by their mime type and size (deep, without changing the input). */
export function stripBinary(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value !== "object" || value === null) return value;
  // Circular content is cut here (and by safeStringify) instead of overflowing the stack.
  if (seen.has(value)) return "[Circular]";
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => stripBinary(v, seen));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "inlineData" && typeof v === "object" && v !== null) {
      const inline = v as { mimeType?: string; data?: string };
      out[key] = { mimeType: inline.mimeType, bytes: Math.floor(((inline.data?.length ?? 0) * 3) / 4), omitted: true };
    } else out[key] = stripBinary(v, seen);
  }
  return out;
}
