import type { AgentEvent } from "./types.js";

export interface TokenTotals {
  prompt: number;
  candidates: number;
  total: number;
  thoughts: number;
  cached: number;
  events: number;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** Token totals over a session's events (partial events excluded: their usage repeats in the final one). */
export function sessionUsage(events: readonly AgentEvent[]): TokenTotals {
  const t: TokenTotals = { prompt: 0, candidates: 0, total: 0, thoughts: 0, cached: 0, events: 0 };
  for (const e of events) {
    const u = e.usageMetadata;
    if (!u || e.partial) continue;
    t.events += 1;
    t.prompt += num(u.promptTokenCount);
    t.candidates += num(u.candidatesTokenCount);
    t.thoughts += num(u.thoughtsTokenCount);
    t.cached += num(u.cachedContentTokenCount);
    t.total += num(u.totalTokenCount) || num(u.promptTokenCount) + num(u.candidatesTokenCount);
  }
  return t;
}

/** Every usage key of one event as label/value rows (numbers, and detail arrays as "MODALITY: n"). */
export function usageRows(usage: Record<string, unknown> | undefined): [string, string][] {
  if (!usage) return [];
  return Object.entries(usage).map(([key, value]) => {
    if (Array.isArray(value)) {
      const parts = value.map(
        (d: { modality?: string; tokenCount?: number }) => `${d.modality ?? "?"}: ${d.tokenCount ?? 0}`,
      );
      return [key, parts.join(", ")];
    }
    return [key, typeof value === "object" ? JSON.stringify(value) : String(value)];
  });
}
