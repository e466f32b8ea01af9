import type OpenAI from "openai";
import type { Content, FunctionDeclaration, LlmRequest, Part, Schema } from "@agentkit/core";
import { getSystemInstructionText } from "@agentkit/core";

type MessageParam = OpenAI.Chat.ChatCompletionMessageParam;
type UserContentPart = OpenAI.Chat.ChatCompletionContentPart;
type ToolCallParam = OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
type CreateParams = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/** Strips the registry prefix (`openai/gpt-4o` → `gpt-4o`). */
export function toOpenAIModelName(name: string): string {
  return name.startsWith("openai/") ? name.slice("openai/".length) : name;
}

/** Builds the Chat Completions body (without `stream`) from a Gemini-shaped request. */
export function toChatCompletionParams(request: LlmRequest, modelName: string): CreateParams {
  const config = request.config;
  const params: CreateParams = {
    model: toOpenAIModelName(modelName),
    messages: toMessages(request),
  };
  const tools = toTools(request);
  if (tools.length > 0) {
    params.tools = tools;
    const toolChoice = toToolChoice(config.toolConfig);
    if (toolChoice !== undefined) params.tool_choice = toolChoice;
  }
  if (config.temperature !== undefined) params.temperature = config.temperature;
  if (config.topP !== undefined) params.top_p = config.topP;
  if (config.maxOutputTokens !== undefined) params.max_completion_tokens = config.maxOutputTokens;
  if (config.stopSequences !== undefined && config.stopSequences.length > 0) params.stop = config.stopSequences;
  if (config.seed !== undefined) params.seed = config.seed;
  if (config.presencePenalty !== undefined) params.presence_penalty = config.presencePenalty;
  if (config.frequencyPenalty !== undefined) params.frequency_penalty = config.frequencyPenalty;
  if (config.candidateCount !== undefined) params.n = config.candidateCount;
  const schema = config.responseJsonSchema ?? (config.responseSchema ? toJsonSchema(config.responseSchema) : undefined);
  if (schema !== undefined) {
    params.response_format = {
      type: "json_schema",
      json_schema: { name: "response", schema: schema as Record<string, unknown>, strict: false },
    };
  } else if (config.responseMimeType === "application/json") {
    params.response_format = { type: "json_object" };
  }
  return params;
}

function toMessages(request: LlmRequest): MessageParam[] {
  const messages: MessageParam[] = [];
  const system = getSystemInstructionText(request);
  if (system.length > 0) messages.push({ role: "system", content: system });
  const ids = new CallIdPairer();
  for (const content of request.contents) messages.push(...contentToMessages(content, ids));
  return messages;
}

/**
 * OpenAI needs every tool message to name its call's id. Calls and responses without ids
 * (e.g. history from another provider) get `call_<name>_<n>`, paired by name in order.
 */
class CallIdPairer {
  private readonly calls = new Map<string, number>();
  private readonly responses = new Map<string, number>();

  forCall(id: string | undefined, name: string): string {
    return id ?? this.next(this.calls, name);
  }

  forResponse(id: string | undefined, name: string | undefined): string {
    return id ?? this.next(this.responses, name ?? "");
  }

  private next(counters: Map<string, number>, name: string): string {
    const n = counters.get(name) ?? 0;
    counters.set(name, n + 1);
    return `call_${name}_${n}`;
  }
}

/** One content may become several messages: tool results each need their own `tool` message. */
function contentToMessages(content: Content, ids: CallIdPairer): MessageParam[] {
  const parts = (content.parts ?? []).filter((p) => !p.thought);
  if (content.role === "model" || content.role === "assistant") return assistantMessages(parts, ids);

  const messages: MessageParam[] = [];
  const userParts: UserContentPart[] = [];
  for (const part of parts) {
    if (part.functionResponse) {
      const fr = part.functionResponse;
      messages.push({
        role: "tool",
        tool_call_id: ids.forResponse(fr.id, fr.name),
        content: JSON.stringify(fr.response ?? {}),
      });
      continue;
    }
    const userPart = toUserPart(part);
    if (userPart) userParts.push(userPart);
  }
  if (userParts.length > 0) {
    const onlyText = userParts.every((p) => p.type === "text");
    messages.push({
      role: "user",
      content: onlyText
        ? userParts.map((p) => (p as OpenAI.Chat.ChatCompletionContentPartText).text).join("")
        : userParts,
    });
  }
  return messages;
}

/** Text, images (inline as data URLs, or by URL), wav/mp3 audio and inline PDFs; other parts are dropped. */
function toUserPart(part: Part): UserContentPart | undefined {
  if (typeof part.text === "string") return { type: "text", text: part.text };
  const data = part.inlineData;
  if (data?.data && data.mimeType) {
    const mimeType = data.mimeType;
    if (mimeType.startsWith("image/"))
      return { type: "image_url", image_url: { url: `data:${mimeType};base64,${data.data}` } };
    if (mimeType === "audio/wav" || mimeType === "audio/x-wav")
      return { type: "input_audio", input_audio: { data: data.data, format: "wav" } };
    if (mimeType === "audio/mpeg" || mimeType === "audio/mp3")
      return { type: "input_audio", input_audio: { data: data.data, format: "mp3" } };
    if (mimeType === "application/pdf") {
      return {
        type: "file",
        file: { file_data: `data:${mimeType};base64,${data.data}`, filename: data.displayName ?? "document.pdf" },
      };
    }
  }
  if (part.fileData?.fileUri && part.fileData.mimeType?.startsWith("image/")) {
    return { type: "image_url", image_url: { url: part.fileData.fileUri } };
  }
  return undefined;
}

function assistantMessages(parts: Part[], ids: CallIdPairer): MessageParam[] {
  const text = parts.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
  const toolCalls: ToolCallParam[] = [];
  for (const part of parts) {
    const call = part.functionCall;
    if (!call?.name) continue;
    toolCalls.push({
      id: ids.forCall(call.id, call.name),
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    });
  }
  if (text.length === 0 && toolCalls.length === 0) return [];
  const message: OpenAI.Chat.ChatCompletionAssistantMessageParam = { role: "assistant" };
  message.content = text.length > 0 ? text : null;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return [message];
}

/** Gemini `toolConfig.functionCallingConfig` → `tool_choice` (AUTO/ANY/NONE, allowed names). */
function toToolChoice(
  toolConfig: Record<string, unknown> | undefined,
): OpenAI.Chat.ChatCompletionToolChoiceOption | undefined {
  const calling = toolConfig?.functionCallingConfig as { mode?: unknown; allowedFunctionNames?: unknown } | undefined;
  const mode = typeof calling?.mode === "string" ? calling.mode.toUpperCase() : undefined;
  const allowed = Array.isArray(calling?.allowedFunctionNames)
    ? calling.allowedFunctionNames.filter((n): n is string => typeof n === "string")
    : [];
  if (mode === "NONE") return "none";
  if (mode === "AUTO") return "auto";
  if (mode === "ANY" || mode === "VALIDATED") {
    if (allowed.length === 1) return { type: "function", function: { name: allowed[0]! } };
    if (allowed.length > 1) {
      return {
        type: "allowed_tools",
        allowed_tools: { mode: "required", tools: allowed.map((name) => ({ type: "function", function: { name } })) },
      };
    }
    return "required";
  }
  return undefined;
}

function toTools(request: LlmRequest): OpenAI.Chat.ChatCompletionFunctionTool[] {
  const declarations: FunctionDeclaration[] = [];
  for (const tool of request.config.tools ?? []) declarations.push(...(tool.functionDeclarations ?? []));
  return declarations.map((decl) => {
    const fn: OpenAI.FunctionDefinition = { name: decl.name };
    if (decl.description) fn.description = decl.description;
    const parameters = decl.parametersJsonSchema ?? (decl.parameters ? toJsonSchema(decl.parameters) : undefined);
    fn.parameters = (parameters as Record<string, unknown> | undefined) ?? { type: "object", properties: {} };
    return { type: "function", function: fn };
  });
}

/**
 * Converts a Gemini schema to JSON Schema: lower-case `type`, `nullable` folded into the type,
 * numeric-string limits parsed; recursive through items, properties and anyOf.
 */
export function toJsonSchema(schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined) continue;
    switch (key) {
      case "type":
        out.type = typeof value === "string" ? value.toLowerCase() : value;
        break;
      case "nullable":
        break;
      case "items":
        out.items = toJsonSchema(value as Schema);
        break;
      case "anyOf":
        out.anyOf = (value as Schema[]).map(toJsonSchema);
        break;
      case "properties":
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, Schema>).map(([name, sub]) => [name, toJsonSchema(sub)]),
        );
        break;
      case "minItems":
      case "maxItems":
      case "minLength":
      case "maxLength":
      case "minProperties":
      case "maxProperties":
        out[key] = typeof value === "string" ? Number(value) : value;
        break;
      case "propertyOrdering":
        break;
      default:
        out[key] = value;
    }
  }
  if (schema.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}
