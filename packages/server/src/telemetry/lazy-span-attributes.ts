import type { SpanAttributeValue } from "./span-json.js";

/**
 * Produces an attribute's JSON text, at most `maxChars` long (see `toJsonString`): a function,
 * or an object with `write` (one small record per span instead of a closure and its context,
 * for what is kept for every model call).
 */
export type AttributeProducer = ((maxChars: number) => string) | { write(maxChars: number): string };

/** One lazy attribute of a span; a span's further ones follow in `next` (there is usually one). */
interface LazyEntry {
  readonly name: string;
  produce: AttributeProducer;
  /** Roughly what the producer holds that nothing else does, in bytes (for the store's budget). */
  bytes: number;
  next: LazyEntry | undefined;
}

/**
 * Span attributes written only when someone reads them. A model call's request holds the
 * whole conversation: serializing it on every call (and keeping the text) made tracing cost
 * time and memory in the square of a conversation's length. The tracing plugin registers a
 * producer per span instead (the request's contents are shared, frozen snapshots), and the trace
 * store asks for the text when the dev UI reads a trace.
 */
export class LazySpanAttributes {
  private readonly entries = new Map<string, LazyEntry>();

  set(spanId: string, attribute: string, producer: AttributeProducer, bytes: number): void {
    const first = this.entries.get(spanId);
    let last: LazyEntry | undefined;
    for (let entry = first; entry; entry = entry.next) {
      if (entry.name === attribute) {
        entry.produce = producer;
        entry.bytes = bytes;
        return;
      }
      last = entry;
    }
    const entry: LazyEntry = { name: attribute, produce: producer, bytes, next: undefined };
    if (last) last.next = entry;
    else this.entries.set(spanId, entry);
  }

  /** The span's lazy attributes, written out (each at most `maxChars` long). */
  resolve(spanId: string, maxChars: number): Record<string, SpanAttributeValue> {
    const out: Record<string, SpanAttributeValue> = {};
    for (let entry = this.entries.get(spanId); entry; entry = entry.next) {
      const produce = entry.produce;
      out[entry.name] = typeof produce === "function" ? produce(maxChars) : produce.write(maxChars);
    }
    return out;
  }

  /** Whether the span has a lazy attribute. */
  has(spanId: string): boolean {
    return this.entries.has(spanId);
  }

  bytesOf(spanId: string): number {
    let bytes = 0;
    for (let entry = this.entries.get(spanId); entry; entry = entry.next) bytes += entry.bytes;
    return bytes;
  }

  delete(spanId: string): void {
    this.entries.delete(spanId);
  }

  clear(): void {
    this.entries.clear();
  }
}
