/**
 * Picks the DOT source out of a graph answer (http-api.md 4.9): `{dotSrc}` at the top level
 * (JS, event graphs), else the `""` entry of build_graph_image's map (Python), else the first
 * entry with a DOT source. `undefined` when there is none (Python's `{}` for unknown events).
 */
export function dotFromResponse(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.dotSrc === "string" && record.dotSrc.trim()) return record.dotSrc;
  const fromEntry = (v: unknown) =>
    typeof v === "object" && v !== null && typeof (v as { dotSrc?: unknown }).dotSrc === "string"
      ? (v as { dotSrc: string }).dotSrc
      : undefined;
  const root = fromEntry(record[""]);
  if (root) return root;
  for (const value of Object.values(record)) {
    const dot = fromEntry(value);
    if (dot) return dot;
  }
  return undefined;
}

/** Whether a string looks like a Graphviz graph (guards the renderer against error pages). */
export function isDot(source: string): boolean {
  return /^\s*(strict\s+)?(di)?graph\b[^{]*\{/i.test(source);
}
