import type {
  LanguageModelV3,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolChoice,
} from "@ai-sdk/provider";
import { getSystemInstructionText, type Content, type LlmRequest, type Part } from "@agentkit/core";
import { CallIdPairer } from "../framework/call-id-pairer.js";
import { decodeThoughtSignature } from "./thought-signature.js";
import { type ConversionIssues, partKind } from "../framework/conversion-issues.js";
import type { SamplingSettings } from "../framework/framework-options.js";
import {
  builtInToolsOf,
  functionCallingChoice,
  functionDeclarationsOf,
  parametersOf,
  responseSchemaOf,
} from "../framework/json-schema.js";

/** A Vercel AI SDK language model of either current specification. */
export type AiSdkLanguageModel = LanguageModelV3 | LanguageModelV4;
type SpecVersion = AiSdkLanguageModel["specificationVersion"];

type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];
type UserPart = Extract<LanguageModelV4Message, { role: "user" }>["content"][number];
type ToolResultPart = Extract<LanguageModelV4Message, { role: "tool" }>["content"][number];

/**
 * Builds the provider call options from a Gemini-shaped request: prompt (system, user, assistant
 * and tool messages), function tools, tool choice, response format and sampling. Parts that
 * have no AI SDK counterpart are reported to `issues`.
 */
export function toAiSdkCallOptions(
  request: LlmRequest,
  sampling: SamplingSettings,
  issues: ConversionIssues,
  version: SpecVersion = "v4",
): LanguageModelV4CallOptions {
  const config = request.config;
  const options: LanguageModelV4CallOptions = { prompt: toAiSdkPrompt(request, issues, version) };
  if (sampling.temperature !== undefined) options.temperature = sampling.temperature;
  if (sampling.maxTokens !== undefined) options.maxOutputTokens = sampling.maxTokens;
  if (sampling.topK !== undefined) options.topK = sampling.topK;
  if (sampling.topP !== undefined) options.topP = sampling.topP;
  if (config.stopSequences !== undefined && config.stopSequences.length > 0)
    options.stopSequences = config.stopSequences;
  if (config.seed !== undefined) options.seed = config.seed;
  if (config.presencePenalty !== undefined) options.presencePenalty = config.presencePenalty;
  if (config.frequencyPenalty !== undefined) options.frequencyPenalty = config.frequencyPenalty;

  for (const tool of builtInToolsOf(request)) {
    issues.report(
      `config.tools[${tool.index}]`,
      `the built-in tool "${tool.name}" has no AI SDK counterpart (only function declarations are passed)`,
    );
  }
  let tools: LanguageModelV4FunctionTool[] = functionDeclarationsOf(request).map((d) => {
    const tool: LanguageModelV4FunctionTool = {
      type: "function",
      name: d.name,
      inputSchema: parametersOf(d) as LanguageModelV4FunctionTool["inputSchema"],
    };
    if (d.description) tool.description = d.description;
    return tool;
  });
  if (tools.length > 0) {
    const choice = functionCallingChoice(config.toolConfig);
    let toolChoice: LanguageModelV4ToolChoice | undefined;
    if (choice.mode === "NONE") toolChoice = { type: "none" };
    else if (choice.mode === "AUTO") toolChoice = { type: "auto" };
    else if (choice.mode === "ANY") {
      if (choice.allowed.length > 0) tools = tools.filter((t) => choice.allowed.includes(t.name));
      const only = choice.allowed.length === 1 ? choice.allowed[0] : undefined;
      toolChoice = only !== undefined ? { type: "tool", toolName: only } : { type: "required" };
    }
    options.tools = tools;
    if (toolChoice !== undefined) options.toolChoice = toolChoice;
  }

  const schema = responseSchemaOf(request);
  if (schema !== undefined) options.responseFormat = { type: "json", schema: schema as never, name: "response" };
  else if (config.responseMimeType === "application/json") options.responseFormat = { type: "json" };
  return options;
}

/** The Gemini-shaped history as an AI SDK prompt. */
export function toAiSdkPrompt(
  request: LlmRequest,
  issues: ConversionIssues,
  version: SpecVersion = "v4",
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  const system = getSystemInstructionText(request);
  if (system.length > 0) prompt.push({ role: "system", content: system });
  const ids = new CallIdPairer();
  prompt.push(
    ...request.contents.flatMap((content, index) =>
      contentToMessages(content, `contents[${index}]`, ids, issues, version),
    ),
  );
  return prompt;
}

/** One content may become several messages: tool results go to a `tool` message of their own. */
function contentToMessages(
  content: Content,
  where: string,
  ids: CallIdPairer,
  issues: ConversionIssues,
  version: SpecVersion,
): LanguageModelV4Message[] {
  const parts = content.parts ?? [];
  if (content.role === "model" || content.role === "assistant") {
    const out: AssistantPart[] = [];
    parts.forEach((part, i) => {
      const at = `${where}.parts[${i}]`;
      if (part.functionCall) {
        const name = part.functionCall.name;
        if (!name) {
          issues.report(at, "a function call without a name");
          return;
        }
        out.push({
          type: "tool-call",
          toolCallId: ids.forCall(part.functionCall.id, name),
          toolName: name,
          input: part.functionCall.args ?? {},
        });
      } else if (part.thought) {
        // Thoughts go back as reasoning with the provider's metadata (signature, item id);
        // a signature from another adapter means nothing here and is left out.
        const providerOptions = decodeThoughtSignature(part.thoughtSignature);
        if (typeof part.text === "string" || providerOptions !== undefined) {
          out.push({
            type: "reasoning",
            text: part.text ?? "",
            ...(providerOptions === undefined ? {} : { providerOptions }),
          });
        }
      } else if (typeof part.text === "string") {
        if (part.text.length > 0) out.push({ type: "text", text: part.text });
      } else {
        const file = toFilePart(part, version);
        if (file) out.push(file);
        else issues.report(at, `unsupported ${partKind(part)} part in a model message`);
      }
    });
    return out.length > 0 ? [{ role: "assistant", content: out }] : [];
  }

  const results: ToolResultPart[] = [];
  const userParts: UserPart[] = [];
  parts.forEach((part, i) => {
    const at = `${where}.parts[${i}]`;
    if (part.functionResponse) {
      const fr = part.functionResponse;
      const response = fr.response ?? {};
      results.push({
        type: "tool-result",
        toolCallId: ids.forResponse(fr.id, fr.name),
        toolName: fr.name ?? "",
        output: {
          type: "error" in response && Object.keys(response).length === 1 ? "error-json" : "json",
          value: response as never,
        },
      });
    } else if (typeof part.text === "string") {
      if (!part.thought) userParts.push({ type: "text", text: part.text });
    } else {
      const file = toFilePart(part, version);
      if (file) userParts.push(file);
      else issues.report(at, `unsupported ${partKind(part)} part in a user message`);
    }
  });
  const messages: LanguageModelV4Message[] = [];
  if (results.length > 0) messages.push({ role: "tool", content: results });
  if (userParts.length > 0) messages.push({ role: "user", content: userParts });
  return messages;
}

/** Inline data and file URIs as file parts in the shape of the model's specification. */
function toFilePart(part: Part, version: SpecVersion): LanguageModelV4FilePart | undefined {
  const inline = part.inlineData;
  if (inline?.data && inline.mimeType) {
    const file = {
      type: "file" as const,
      mediaType: inline.mimeType,
      data: version === "v3" ? inline.data : { type: "data" as const, data: inline.data },
      ...(inline.displayName ? { filename: inline.displayName } : {}),
    };
    return file as LanguageModelV4FilePart;
  }
  const uri = part.fileData?.fileUri;
  if (uri && part.fileData?.mimeType && URL.canParse(uri)) {
    const url = new URL(uri);
    return {
      type: "file",
      mediaType: part.fileData.mimeType,
      data: (version === "v3" ? url : { type: "url", url }) as never,
    };
  }
  return undefined;
}
