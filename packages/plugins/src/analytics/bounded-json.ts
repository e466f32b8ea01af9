import { inlineSummary } from "./strip-binary.js";

/**
 * The first `limit` characters of a value's analytics JSON, written without going further: what
 * `safeStringify(strip ? stripBinary(value) : value)` gives, cut to `limit`, and whether it was
 * cut. An LLM_REQUEST row holds the whole conversation, and serializing all of it (and stripping
 * a copy of it first) to keep its first 500 characters made every model call cost the length of
 * the session; this stops as soon as the cut is known.
 *
 * The two modes keep the old path's exact output: with `strip`, every object is written as the
 * plain record `stripBinary` makes of it (own enumerable entries, no `toJSON`, inline bytes as
 * their mime type and size); without it, as `JSON.stringify` writes it (`toJSON`, boxed
 * primitives unwrapped). Both write a bigint as its decimal string and an object inside itself
 * as "[Circular]".
 */
export function boundedJson(
  value: unknown,
  limit: number,
  strip: boolean,
): { text: string | null; truncated: boolean } {
  const writer = new BoundedWriter(limit, strip);
  if (!writer.value(undefined, "", value)) return { text: null, truncated: false };
  const text = writer.parts.join("");
  return text.length > limit ? { text: text.slice(0, limit), truncated: true } : { text, truncated: false };
}

class BoundedWriter {
  readonly parts: string[] = [];
  private length = 0;
  /** The objects being written, outermost first: one met again inside itself is a cycle. */
  private readonly path: object[] = [];

  constructor(
    private readonly limit: number,
    private readonly strip: boolean,
  ) {}

  /** Past the limit: nothing more needs writing. */
  private get full(): boolean {
    return this.length > this.limit;
  }

  private push(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }

  /** Writes `raw` (the member `key` of `holder`); false when JSON leaves it out (undefined, a function, a symbol). */
  value(holder: unknown, key: string, raw: unknown): boolean {
    let v = raw;
    if (!this.strip && typeof v === "object" && v !== null) {
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") v = toJSON.call(v, key) as unknown;
    }
    if (this.strip && key === "inlineData" && typeof v === "object" && v !== null && holder !== undefined)
      v = inlineSummary(v);
    if (typeof v === "bigint") v = v.toString();
    if (!this.strip && typeof v === "object" && v !== null) v = unboxed(v);
    switch (typeof v) {
      case "string":
        this.string(v);
        return true;
      case "number":
        this.push(Number.isFinite(v) ? String(v) : "null");
        return true;
      case "boolean":
        this.push(v ? "true" : "false");
        return true;
      case "object":
        if (v === null) this.push("null");
        else if (this.path.includes(v)) this.push('"[Circular]"');
        else {
          this.path.push(v);
          if (Array.isArray(v)) this.array(v);
          else this.record(v as Record<string, unknown>);
          this.path.pop();
        }
        return true;
      default:
        return false;
    }
  }

  private array(items: unknown[]): void {
    this.push("[");
    for (let i = 0; i < items.length && !this.full; i++) {
      if (i > 0) this.push(",");
      if (!this.value(items, String(i), items[i])) this.push("null");
    }
    this.push("]");
  }

  private record(record: Record<string, unknown>): void {
    this.push("{");
    let first = true;
    for (const key of Object.keys(record)) {
      if (this.full) break;
      const mark = this.parts.length;
      const before = this.length;
      this.push(`${first ? "" : ","}${JSON.stringify(key)}:`);
      if (this.value(record, key, record[key])) first = false;
      else {
        // Left out: take the key back.
        this.parts.length = mark;
        this.length = before;
      }
    }
    this.push("}");
  }

  /**
   * The string as JSON, only as much of it as can still show. Cut to the room left, its escaped
   * text still reaches the limit (escaping only lengthens it), and its last character, the only
   * one that may be escaped differently (half of a surrogate pair, alone), starts at or past it.
   */
  private string(text: string): void {
    // Already past the limit (a key took the last of the room): nothing of it shows.
    if (this.full) {
      this.push('"');
      return;
    }
    const room = this.limit - this.length;
    this.push(JSON.stringify(text.length <= room ? text : text.slice(0, room)));
  }
}

/** What `JSON.stringify` writes for a boxed primitive: its value. */
function unboxed(value: object): unknown {
  if (value instanceof Number) return Number(value);
  if (value instanceof String) return String(value);
  if (value instanceof Boolean) return value.valueOf();
  return value;
}
