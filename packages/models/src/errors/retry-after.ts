/** Response headers as SDKs expose them: a `Headers`-like object or a plain record. */
export type HeadersLike =
  | { get(name: string): string | null | undefined }
  | Record<string, string | string[] | number | null | undefined>;

/** A header value, case-insensitively, or undefined. */
export function readHeader(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== "object") return undefined;
  const getter = (headers as { get?: unknown }).get;
  if (typeof getter === "function") {
    const value = (getter as (n: string) => unknown).call(headers, name);
    return value === null || value === undefined ? undefined : String(value);
  }
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== lower || value === null || value === undefined) continue;
    return Array.isArray(value) ? (value[0] === undefined ? undefined : String(value[0])) : String(value);
  }
  return undefined;
}

/**
 * The wait the server asked for, in ms: `retry-after-ms` (milliseconds, OpenAI), else
 * `Retry-After` as seconds or an HTTP date (RFC 9110). Undefined when absent or unparseable.
 */
export function parseRetryAfter(headers: unknown, now: number = Date.now()): number | undefined {
  const ms = readHeader(headers, "retry-after-ms");
  if (ms !== undefined && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const raw = readHeader(headers, "retry-after")?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000);
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
