import type OpenAI from "openai";
import type { Content, FunctionDeclaration, LlmRequest, Part } from "@agentkit/core";
import { getSystemInstructionText } from "@agentkit/core";
import { toJsonSchema, toOpenAIModelName } from "./request-conversion.js";

type InputItem = OpenAI.Responses.ResponseInputItem;
type InputContent = OpenAI.Responses.ResponseInputContent;
type CreateParams = OpenAI.Responses.ResponseCreateParamsNonStreaming;

/**
 * Builds a Responses API body (without `stream`) from a Gemini-shaped request. Stateless
 * (`store: false`): the whole history is sent as input items each time.
 */
export function toResponsesParams(request: LlmRequest, modelName: string): CreateParams {
  const config = request.config;
  const params: CreateParams = {
    model: toOpenAIModelName(modelName),
    input: toInputItems(request.contents),
    store: false,
  };
  const system = getSystemInstructionText(request);
  if (system.length > 0) params.instructions = system;
  const tools = toFunctionTools(request);
  if (tools.length > 0) params.tools = tools;
  if (config.temperature !== undefined) params.temperature = config.temperature;
  if (config.topP !== undefined) params.top_p = config.topP;
  if (config.maxOutputTokens !== undefined) params.max_output_tokens = config.maxOutputTokens;
  const schema = config.responseJsonSchema ?? (config.responseSchema ? toJsonSchema(config.responseSchema) : undefined);
  if (schema !== undefined) {
    params.text = {
      format: { type: "json_schema", name: "response", schema: schema as Record<string, unknown>, strict: false },
    };
  } else if (config.responseMimeType === "application/json") {
    params.text = { format: { type: "json_object" } };
  }
  return params;
}

function toInputItems(contents: Content[]): InputItem[] {
  const items: InputItem[] = [];
  const callCounters = new Map<string, number>();
  const responseCounters = new Map<string, number>();
  const fallbackId = (counters: Map<string, number>, name: string): string => {
    const n = counters.get(name) ?? 0;
    counters.set(name, n + 1);
    return `call_${name}_${n}`;
  };
  for (const content of contents) {
    const parts = (content.parts ?? []).filter((p) => !p.thought);
    if (content.role === "model" || content.role === "assistant") {
      const text = parts.map((p) => p.text ?? "").join("");
      if (text.length > 0) items.push({ role: "assistant", content: text });
      for (const part of parts) {
        const call = part.functionCall;
        if (!call?.name) continue;
        items.push({
          type: "function_call",
          call_id: call.id ?? fallbackId(callCounters, call.name),
          name: call.name,
          arguments: JSON.stringify(call.args ?? {}),
        });
      }
      continue;
    }
    const userContent: InputContent[] = [];
    for (const part of parts) {
      const response = part.functionResponse;
      if (response) {
        items.push({
          type: "function_call_output",
          call_id: response.id ?? fallbackId(responseCounters, response.name ?? ""),
          output: JSON.stringify(response.response ?? {}),
        });
        continue;
      }
      const converted = toInputContent(part);
      if (converted) userContent.push(converted);
    }
    if (userContent.length > 0) items.push({ role: "user", content: userContent });
  }
  return items;
}

function toInputContent(part: Part): InputContent | undefined {
  if (typeof part.text === "string") return { type: "input_text", text: part.text };
  const data = part.inlineData;
  if (data?.data && data.mimeType?.startsWith("image/")) {
    return { type: "input_image", detail: "auto", image_url: `data:${data.mimeType};base64,${data.data}` };
  }
  if (data?.data && data.mimeType === "application/pdf") {
    return {
      type: "input_file",
      file_data: `data:${data.mimeType};base64,${data.data}`,
      filename: data.displayName ?? "document.pdf",
    };
  }
  if (part.fileData?.fileUri && part.fileData.mimeType?.startsWith("image/")) {
    return { type: "input_image", detail: "auto", image_url: part.fileData.fileUri };
  }
  return undefined;
}

function toFunctionTools(request: LlmRequest): OpenAI.Responses.FunctionTool[] {
  const declarations: FunctionDeclaration[] = [];
  for (const tool of request.config.tools ?? []) declarations.push(...(tool.functionDeclarations ?? []));
  return declarations.map((decl) => {
    const parameters = decl.parametersJsonSchema ?? (decl.parameters ? toJsonSchema(decl.parameters) : undefined);
    const tool: OpenAI.Responses.FunctionTool = {
      type: "function",
      name: decl.name,
      parameters: (parameters as Record<string, unknown> | undefined) ?? { type: "object", properties: {} },
      strict: false,
    };
    if (decl.description) tool.description = decl.description;
    return tool;
  });
}
