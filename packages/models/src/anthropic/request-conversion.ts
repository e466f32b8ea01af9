import type Anthropic from "@anthropic-ai/sdk";
import { ConfigurationError, getSystemInstructionText } from "@agentkit/core";
import type { Content, FunctionDeclaration, LlmRequest, Part, Schema } from "@agentkit/core";
import type { ResolvedAnthropicModelOptions } from "./anthropic-options.js";

type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type MessageParam = Anthropic.Messages.MessageParam;
type ImageMediaType = Anthropic.Messages.Base64ImageSource["media_type"];

/**
 * The Messages API body we send. Sampling fields are declared here because the SDK's
 * types no longer list them; the API still accepts them and the SDK passes the body through.
 */
export type AnthropicRequestParams = Omit<Anthropic.Messages.MessageCreateParamsNonStreaming, "stream"> & {
  temperature?: number;
  top_p?: number;
  top_k?: number;
};

const EPHEMERAL = { type: "ephemeral" } as const;
const IMAGE_TYPES = new Set<string>(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** Builds the Messages API body for a Gemini-shaped request. */
export function toAnthropicRequest(
  request: LlmRequest,
  modelName: string,
  options: ResolvedAnthropicModelOptions,
): AnthropicRequestParams {
  const config = request.config;
  const params: AnthropicRequestParams = {
    model: stripProviderPrefix(modelName),
    max_tokens: config.maxOutputTokens ?? options.maxTokens,
    messages: toAnthropicMessages(request.contents),
  };
  const system = getSystemInstructionText(request);
  if (system) {
    params.system = options.promptCaching ? [{ type: "text", text: system, cache_control: EPHEMERAL }] : system;
  }
  const tools = toAnthropicTools(config.tools?.flatMap((t) => t.functionDeclarations ?? []) ?? []);
  if (tools.length > 0) {
    if (options.promptCaching) tools[tools.length - 1]!.cache_control = EPHEMERAL;
    params.tools = tools;
    const choice = toToolChoice(config.toolConfig);
    if (choice) params.tool_choice = choice;
  }
  if (config.temperature !== undefined) params.temperature = config.temperature;
  if (config.topP !== undefined) params.top_p = config.topP;
  if (config.topK !== undefined) params.top_k = config.topK;
  if (config.stopSequences?.length) params.stop_sequences = config.stopSequences;
  const budget = options.thinking?.budgetTokens ?? positive(config.thinkingConfig?.thinkingBudget);
  if (budget !== undefined) params.thinking = { type: "enabled", budget_tokens: budget };
  const outputSchema =
    config.responseJsonSchema ?? (config.responseSchema ? geminiSchemaToJsonSchema(config.responseSchema) : undefined);
  if (outputSchema && typeof outputSchema === "object") {
    params.output_config = { format: { type: "json_schema", schema: outputSchema as Record<string, unknown> } };
  }
  return params;
}

/** `anthropic/claude-x` → `claude-x` (registry names carry the provider prefix). */
export function stripProviderPrefix(name: string): string {
  return name.startsWith("anthropic/") ? name.slice("anthropic/".length) : name;
}

/**
 * Gemini contents → Anthropic messages. Function responses become user `tool_result`
 * blocks; consecutive same-role messages merge because the API requires alternation.
 */
export function toAnthropicMessages(contents: Content[]): MessageParam[] {
  const messages: MessageParam[] = [];
  const push = (role: "user" | "assistant", block: ContentBlockParam): void => {
    const last = messages[messages.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  contents.forEach((content, contentIndex) => {
    const role = content.role === "model" ? "assistant" : "user";
    (content.parts ?? []).forEach((part, partIndex) => {
      if (part.functionResponse) {
        push("user", toToolResult(part, `${contentIndex}_${partIndex}`));
        return;
      }
      const block = role === "assistant" ? toAssistantBlock(part, `${contentIndex}_${partIndex}`) : toUserBlock(part);
      if (block) push(role, block);
    });
  });
  // The API wants tool results first in a user message (before any text after them).
  for (const message of messages) {
    if (message.role === "user" && Array.isArray(message.content)) {
      const content = message.content as ContentBlockParam[];
      const results = content.filter((b) => b.type === "tool_result");
      if (results.length > 0 && results.length < content.length) {
        message.content = [...results, ...content.filter((b) => b.type !== "tool_result")];
      }
    }
  }
  return messages;
}

function toAssistantBlock(part: Part, fallbackId: string): ContentBlockParam | undefined {
  if (part.functionCall) {
    return {
      type: "tool_use",
      id: part.functionCall.id ?? `toolu_${fallbackId}`,
      name: part.functionCall.name ?? "",
      input: part.functionCall.args ?? {},
    };
  }
  if (part.thought && part.text === undefined && part.thoughtSignature) {
    // A redacted thinking block: its encrypted data travels as the signature of a text-less thought.
    return { type: "redacted_thinking", data: part.thoughtSignature };
  }
  if (typeof part.text === "string") {
    if (part.thought) {
      // Anthropic rejects thinking blocks without their signature (e.g. another vendor's thoughts).
      return part.thoughtSignature
        ? { type: "thinking", thinking: part.text, signature: part.thoughtSignature }
        : undefined;
    }
    return part.text.length > 0 ? { type: "text", text: part.text } : undefined;
  }
  return toMediaBlock(part);
}

function toUserBlock(part: Part): ContentBlockParam | undefined {
  if (typeof part.text === "string") {
    if (part.thought) return undefined;
    return part.text.length > 0 ? { type: "text", text: part.text } : undefined;
  }
  return toMediaBlock(part);
}

function toMediaBlock(part: Part): ContentBlockParam | undefined {
  if (part.inlineData?.data) {
    const mimeType = part.inlineData.mimeType ?? "";
    if (IMAGE_TYPES.has(mimeType)) {
      return {
        type: "image",
        source: {
          type: "base64",
          media_type: mimeType as ImageMediaType,
          data: toStandardBase64(part.inlineData.data),
        },
      };
    }
    if (mimeType === "application/pdf") {
      return {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: toStandardBase64(part.inlineData.data) },
      };
    }
    throw new ConfigurationError(
      `Anthropic models accept inline images (jpeg, png, gif, webp) and PDFs, not "${mimeType}". Convert the data or ` +
        `drop the part.`,
    );
  }
  if (part.fileData?.fileUri) {
    const mimeType = part.fileData.mimeType ?? "";
    if (IMAGE_TYPES.has(mimeType)) return { type: "image", source: { type: "url", url: part.fileData.fileUri } };
    if (mimeType === "application/pdf")
      return { type: "document", source: { type: "url", url: part.fileData.fileUri } };
    throw new ConfigurationError(`Anthropic models accept file URLs of images and PDFs, not "${mimeType}".`);
  }
  return undefined;
}

function toToolResult(part: Part, fallbackId: string): ContentBlockParam {
  const fr = part.functionResponse!;
  const response = fr.response ?? {};
  const block: Anthropic.Messages.ToolResultBlockParam = {
    type: "tool_result",
    tool_use_id: fr.id ?? `toolu_${fallbackId}`,
    content: JSON.stringify(response),
  };
  if (Object.hasOwn(response, "error")) block.is_error = true;
  return block;
}

function toAnthropicTools(declarations: FunctionDeclaration[]): Anthropic.Messages.Tool[] {
  return declarations.map((decl) => {
    const tool: Anthropic.Messages.Tool = { name: decl.name, input_schema: toInputSchema(decl) };
    if (decl.description) tool.description = decl.description;
    return tool;
  });
}

function toInputSchema(decl: FunctionDeclaration): Anthropic.Messages.Tool.InputSchema {
  const schema =
    decl.parametersJsonSchema && typeof decl.parametersJsonSchema === "object"
      ? (decl.parametersJsonSchema as Record<string, unknown>)
      : decl.parameters
        ? geminiSchemaToJsonSchema(decl.parameters)
        : {};
  return { ...schema, type: "object" } as Anthropic.Messages.Tool.InputSchema;
}

const NUMERIC_KEYS = new Set(["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]);

/** Gemini `Schema` (upper-case types, `nullable`, numeric strings) → standard JSON Schema. */
export function geminiSchemaToJsonSchema(schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (value === undefined || key === "nullable" || key === "propertyOrdering") continue;
    if (key === "type" && typeof value === "string") out.type = value.toLowerCase();
    else if (key === "properties" && value && typeof value === "object") {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([name, sub]) => [name, geminiSchemaToJsonSchema(sub)]),
      );
    } else if (key === "items" && value && typeof value === "object")
      out.items = geminiSchemaToJsonSchema(value as Schema);
    else if (key === "anyOf" && Array.isArray(value)) out.anyOf = (value as Schema[]).map(geminiSchemaToJsonSchema);
    else if (NUMERIC_KEYS.has(key) && typeof value === "string") out[key] = Number(value);
    else out[key] = value;
  }
  if (schema.nullable && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}

function toToolChoice(toolConfig: Record<string, unknown> | undefined): Anthropic.Messages.ToolChoice | undefined {
  const fcc = toolConfig?.functionCallingConfig as { mode?: string; allowedFunctionNames?: string[] } | undefined;
  const mode = fcc?.mode?.toUpperCase();
  if (mode === "NONE") return { type: "none" };
  if (mode === "ANY") {
    const names = fcc?.allowedFunctionNames ?? [];
    return names.length === 1 ? { type: "tool", name: names[0]! } : { type: "any" };
  }
  return undefined;
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && value > 0 ? value : undefined;
}

/** Anthropic wants the standard base64 alphabet; Gemini parts may carry URL-safe base64. */
function toStandardBase64(data: string): string {
  return data.replace(/-/g, "+").replace(/_/g, "/");
}
