import { ConfigurationError } from "@agentkit/core";

/** Milliseconds from a number (ms) or a duration string: `250ms`, `5s`, `2m`, `1h`, `1.5s`. */
export function parseDuration(value: number | string, what: string): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0)
      throw new ConfigurationError(`${what} must be a non-negative number of milliseconds, got ${value}.`);
    return value;
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(value);
  if (!match)
    throw new ConfigurationError(
      `${what} must be milliseconds or a duration such as "500ms", "5s", "1m"; got "${value}".`,
    );
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
  return Math.round(Number(match[1]) * factor);
}
