import { getTextOf, type InvocationContext } from "@agentkit/core";
import { safeStringify } from "./abortable.js";
import type { ContentFormatter } from "./analytics-options.js";
import type { AnalyticsEventType, AnalyticsRow } from "./analytics-row.js";
import { boundedJson } from "./bounded-json.js";
import { isContent, stripBinary } from "./strip-binary.js";

/** What a hook knows of its row; the rest comes from the invocation. */
export interface AnalyticsRowData {
  agent?: string;
  model?: string | null;
  tool?: string;
  content?: unknown;
  attributes?: Record<string, unknown>;
  latencyMs?: number | null;
  error?: string;
}

/** How `content` and attributes are written (the plugin's options). */
export interface AnalyticsRowFormat {
  /** 0: no limit. */
  maxContentLength: number;
  logMultiModal: boolean;
  formatter?: ContentFormatter;
  customTags?: Record<string, string>;
}

/**
 * One row of the analytics table. `content` is stripped of binary data unless multimodal
 * logging is on, passed through the content formatter, written as plain text when it is a
 * text-only Content (JSON otherwise) and cut to `maxContentLength` (`is_truncated`). Throws
 * what the formatter throws: the caller drops the row.
 */
export function buildAnalyticsRow(
  ctx: InvocationContext,
  type: AnalyticsEventType,
  data: AnalyticsRowData,
  format: AnalyticsRowFormat,
): AnalyticsRow {
  const { text, truncated } = formatContent(data.content, type, format);
  const attributes = { ...(data.attributes ?? {}), ...(format.customTags ? { custom_tags: format.customTags } : {}) };
  const cleaned = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined));
  return {
    timestamp: new Date().toISOString(),
    event_type: type,
    app_name: ctx.appName,
    agent: data.agent ?? null,
    session_id: ctx.session.id,
    invocation_id: ctx.invocationId,
    user_id: ctx.userId,
    model: data.model ?? null,
    tool_name: data.tool ?? null,
    content: text,
    attributes: Object.keys(cleaned).length ? safeStringify(cleaned) : null,
    latency_ms: data.latencyMs ?? null,
    status: data.error ? "ERROR" : "OK",
    error_message: data.error ?? null,
    is_truncated: truncated,
  };
}

function formatContent(
  content: unknown,
  type: AnalyticsEventType,
  format: AnalyticsRowFormat,
): { text: string | null; truncated: boolean } {
  if (content === undefined || content === null) return { text: null, truncated: false };
  const max = format.maxContentLength;
  // A formatter is handed the whole value; without one, only what the row keeps is written.
  if (!format.formatter && max > 0) {
    if (typeof content === "string") return cut(content, max);
    const plain = plainText(content);
    if (plain !== undefined) return cut(plain, max);
    return boundedJson(content, max, !format.logMultiModal);
  }
  let value = format.logMultiModal ? content : stripBinary(content);
  if (format.formatter) value = format.formatter(value, type);
  if (value === undefined || value === null) return { text: null, truncated: false };
  const text = typeof value === "string" ? value : (plainText(value) ?? safeStringify(value));
  return max > 0 ? cut(text, max) : { text, truncated: false };
}

/** The text of a Content made of text parts only (written as plain text, not JSON); else undefined. */
function plainText(value: unknown): string | undefined {
  if (!isContent(value)) return undefined;
  const plain = getTextOf(value);
  return plain && (value.parts ?? []).every((p) => typeof p.text === "string") ? plain : undefined;
}

function cut(text: string, max: number): { text: string; truncated: boolean } {
  return text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false };
}
