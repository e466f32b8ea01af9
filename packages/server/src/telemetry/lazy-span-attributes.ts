import type { SpanAttributeValue } from "./span-json.js";

/** Produces an attribute's JSON text, at most `maxChars` long (see `toJsonString`). */
export type AttributeProducer = (maxChars: number) => string;

interface LazyEntry {
  producers: Map<string, AttributeProducer>;
  /** Roughly what the producers hold that nothing else does, in bytes (for the store's budget). */
  bytes: number;
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
    let entry = this.entries.get(spanId);
    if (!entry) this.entries.set(spanId, (entry = { producers: new Map(), bytes: 0 }));
    entry.producers.set(attribute, producer);
    entry.bytes += bytes;
  }

  /** The span's lazy attributes, written out (each at most `maxChars` long). */
  resolve(spanId: string, maxChars: number): Record<string, SpanAttributeValue> {
    const entry = this.entries.get(spanId);
    if (!entry) return {};
    const out: Record<string, SpanAttributeValue> = {};
    for (const [name, produce] of entry.producers) out[name] = produce(maxChars);
    return out;
  }

  bytesOf(spanId: string): number {
    return this.entries.get(spanId)?.bytes ?? 0;
  }

  delete(spanId: string): void {
    this.entries.delete(spanId);
  }

  clear(): void {
    this.entries.clear();
  }
}
