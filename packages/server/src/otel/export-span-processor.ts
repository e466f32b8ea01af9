import type { Attributes, AttributeValue, Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace";
import type { LazySpanAttributes } from "../telemetry/lazy-span-attributes.js";
import { TraceAttr } from "../telemetry/trace-attributes.js";
import { DEFAULT_MAX_ATTRIBUTE_CHARS } from "../telemetry/trace-json.js";
import { redactCredentials, type Redactor } from "./redact-content.js";

/** The span attributes that hold prompts, responses and tool payloads. */
export const CONTENT_ATTRIBUTES: ReadonlySet<string> = new Set([
  TraceAttr.llmRequest,
  TraceAttr.llmResponse,
  TraceAttr.toolCallArgs,
  TraceAttr.toolResponse,
]);

export interface ExportSpanProcessorOptions {
  /** Where the ended spans go (a `BatchSpanProcessor` over the OTLP exporter). */
  next: SpanProcessor;
  /** Keep content attributes (redacted); off: they are dropped. */
  captureContent: boolean;
  /** Applied after the built-in credential masking to every exported string attribute. */
  redact?: Redactor;
  /** The tracing plugin's lazily written attributes (model requests), read when content is exported. */
  lazy?: LazySpanAttributes;
  /** Delete a span's lazy attributes once exported (the plugin is this exporter's alone: nothing else would). */
  ownsLazy?: boolean;
  maxAttributeChars?: number;
}

/**
 * Sits between the tracing plugin's provider and the OTLP batch processor: every span is passed
 * on as a view whose attributes have content removed (the default) or, when content capture is
 * on, the model request written out and every content attribute redacted. The span itself is
 * untouched, so the dev UI's trace store beside it still shows what it recorded.
 */
export class ExportSpanProcessor implements SpanProcessor {
  constructor(private readonly options: ExportSpanProcessorOptions) {}

  onStart(span: Span, parentContext: Context): void {
    this.options.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    const { lazy, captureContent, ownsLazy } = this.options;
    const spanId = span.spanContext().spanId;
    let attributes: Attributes = { ...span.attributes };
    if (captureContent && lazy)
      attributes = {
        ...attributes,
        ...lazy.resolve(spanId, this.options.maxAttributeChars ?? DEFAULT_MAX_ATTRIBUTE_CHARS),
      };
    if (ownsLazy) lazy?.delete(spanId);
    const out: Attributes = {};
    for (const [key, value] of Object.entries(attributes)) {
      if (CONTENT_ATTRIBUTES.has(key) && !captureContent) continue;
      out[key] = this.redactValue(key, value);
    }
    // A view of the span: the SDK's span object is shared with the other processors.
    const view: ReadableSpan = Object.create(span, { attributes: { value: out, enumerable: true } });
    this.options.next.onEnd(view);
  }

  forceFlush(): Promise<void> {
    return this.options.next.forceFlush();
  }

  /**
   * Leaves `next` running: the export owns the batch processor and stops it within its bounded
   * shutdown; a trace recorder shutting down its provider first must not wait on the receiver.
   */
  async shutdown(): Promise<void> {}

  private redactValue(key: string, value: AttributeValue | undefined): AttributeValue | undefined {
    const one = (text: string) => {
      const masked = redactCredentials(text);
      return this.options.redact ? this.options.redact(masked, { signal: "traces", attribute: key }) : masked;
    };
    if (typeof value === "string") return one(value);
    if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? one(v) : v)) as AttributeValue;
    return value;
  }
}
