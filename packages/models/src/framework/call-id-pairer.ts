/**
 * Frameworks pair a tool result with its call by id. Calls and responses without ids (history
 * from a provider that has none) get `call_<name>_<n>`, paired by name in order.
 */
export class CallIdPairer {
  private readonly calls = new Map<string, number>();
  private readonly responses = new Map<string, number>();

  forCall(id: string | undefined, name: string): string {
    return id !== undefined && id !== "" ? id : this.next(this.calls, name);
  }

  forResponse(id: string | undefined, name: string | undefined): string {
    return id !== undefined && id !== "" ? id : this.next(this.responses, name ?? "");
  }

  private next(counters: Map<string, number>, name: string): string {
    const n = counters.get(name) ?? 0;
    counters.set(name, n + 1);
    return `call_${name}_${n}`;
  }
}

/** Parses tool-call arguments; undefined when they are not a JSON object. */
export function parseToolArgs(raw: unknown): Record<string, unknown> | undefined {
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== "string") return undefined;
  if (raw.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
