import { setOwn } from "@agentkit/core/internal";

/**
 * MongoDB reads "." in a field name as a path and a leading "$" as an operator, and servers
 * (and drivers) refuse or drop a field named "__proto__", so user data (state keys, tool
 * arguments such as JSON Schema "$ref") cannot be stored as field names unchanged. Keys are
 * escaped reversibly: "%" → "%25", "." → "%2E", a leading "$" → "%24", and the first "_" of
 * "__proto__" → "%5F". Ordinary keys are stored as they are (and old documents, which never
 * held "%5F" unescaped, still decode to the same keys).
 */
export function encodeKey(key: string): string {
  let out = key.replace(/%/g, "%25").replace(/\./g, "%2E");
  if (out.startsWith("$")) out = `%24${out.slice(1)}`;
  if (out === "__proto__") out = "%5F_proto__";
  return out;
}

const DECODED: Readonly<Record<string, string>> = { "25": "%", "2E": ".", "24": "$", "5F": "_" };

export function decodeKey(key: string): string {
  // One pass, so an escaped "%" is never read as the start of another escape.
  return key.replace(/%(25|2E|24|5F)/g, (_, code: string) => DECODED[code]!);
}

/** Escapes every key of a JSON-like value, recursively (values are copied). */
export function encodeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(encodeKeys);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, encodeKey(k), encodeKeys(v));
    return out;
  }
  return value;
}

export function decodeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeKeys);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, decodeKey(k), decodeKeys(v));
    return out;
  }
  return value;
}

/** A JSON-normal copy: what the HTTP API and the SQL stores keep (undefined dropped, Dates as strings). */
export function toJsonValue<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
