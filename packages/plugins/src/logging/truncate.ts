/** Cuts a string to `max` characters, saying how much was cut. `max <= 0` keeps everything. */
export function truncate(text: string, max: number): string {
  if (max <= 0 || text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more chars)`;
}

/** A compact one-line JSON of a value, truncated. Values that cannot be serialized say so. */
export function preview(value: unknown, max: number): string {
  let json: string;
  try {
    json = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value);
  } catch {
    json = "[unserializable]";
  }
  return truncate(json, max);
}
