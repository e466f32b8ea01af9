/** A JSON object: an object that is neither null nor an array (what request bodies and events hold as records). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
