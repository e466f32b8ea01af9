/** One MCP content block in the JSON shape the model gets back (no `_meta` or annotations). */
export type McpContentItem =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; mimeType: string; data: string }
  | { type: "resource_link"; uri: string; name?: string; mimeType?: string; description?: string }
  | { type: "resource"; uri: string; mimeType?: string; text?: string; blob?: string }
  | { type: string; [key: string]: unknown };

/** What an MCP tool returns to the flow (the function response). */
export interface McpToolResponse {
  [key: string]: unknown;
  /** Every content block, in order. */
  content: McpContentItem[];
  /** The text blocks joined with newlines (absent when there are none). */
  text?: string;
  /** The tool's structured output when it declares an output schema. */
  structuredContent?: Record<string, unknown>;
}

/** Converts a `tools/call` result (either the current or the legacy `toolResult` shape). */
export function toToolResponse(result: Record<string, unknown>): McpToolResponse {
  const blocks = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  const content = blocks.map(toContentItem);
  if (!Array.isArray(result.content) && "toolResult" in result)
    content.push({ type: "text", text: JSON.stringify(result.toolResult) });
  const texts = content.flatMap((c) => (c.type === "text" && typeof c.text === "string" ? [c.text] : []));
  const response: McpToolResponse = { content };
  if (texts.length > 0) response.text = texts.join("\n");
  const structured = result.structuredContent;
  if (typeof structured === "object" && structured !== null && !Array.isArray(structured)) {
    response.structuredContent = structured as Record<string, unknown>;
  }
  return response;
}

function toContentItem(block: Record<string, unknown>): McpContentItem {
  switch (block.type) {
    case "text":
      return { type: "text", text: String(block.text ?? "") };
    case "image":
    case "audio":
      return { type: block.type, mimeType: String(block.mimeType ?? ""), data: String(block.data ?? "") };
    case "resource_link":
      return pick({ type: "resource_link" }, block, ["uri", "name", "mimeType", "description"]);
    case "resource": {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      return pick({ type: "resource" }, resource, ["uri", "mimeType", "text", "blob"]);
    }
    default: {
      const { _meta: _m, annotations: _a, ...rest } = block;
      return { ...rest, type: String(block.type) };
    }
  }
}

function pick<T extends { type: string }>(base: T, source: Record<string, unknown>, keys: string[]): McpContentItem {
  const out: Record<string, unknown> = { ...base };
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out as McpContentItem;
}
