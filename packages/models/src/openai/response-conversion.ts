import type OpenAI from "openai";
import type { LlmResponse, Part, UsageMetadata } from "@agentkit/core";
import { mapFinishReason } from "./finish-reason.js";
import { GenAiFieldMissingError } from "../errors/genai-field-missing-error.js";

interface RawToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Parsed calls plus the names of calls whose arguments were not valid JSON. */
function toFunctionCallParts(calls: RawToolCall[]): { parts: Part[]; malformed: string[] } {
  const parts: Part[] = [];
  const malformed: string[] = [];
  for (const call of calls) {
    let args: Record<string, unknown> = {};
    if (call.arguments.trim().length > 0) {
      try {
        const parsed: unknown = JSON.parse(call.arguments);
        if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
          args = parsed as Record<string, unknown>;
        else malformed.push(`${call.name}: ${call.arguments}`);
      } catch {
        malformed.push(`${call.name}: ${call.arguments}`);
      }
    }
    parts.push({ functionCall: { id: call.id, name: call.name, args } });
  }
  return { parts, malformed };
}

export function toUsageMetadata(usage: OpenAI.CompletionUsage | null | undefined): UsageMetadata | undefined {
  if (!usage) return undefined;
  const metadata: UsageMetadata = {
    promptTokenCount: usage.prompt_tokens,
    candidatesTokenCount: usage.completion_tokens,
    totalTokenCount: usage.total_tokens,
  };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === "number") metadata.cachedContentTokenCount = cached;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") metadata.thoughtsTokenCount = reasoning;
  return metadata;
}

/**
 * Builds the complete response. Tool calls whose arguments are not a JSON object keep their
 * call (with `args: {}`, so the flow answers the model rather than crashing) and mark the
 * response with `errorCode: "MALFORMED_FUNCTION_CALL"` and the raw arguments in `errorMessage`.
 */
function buildResponse(input: {
  text: string;
  refusal: string;
  toolCalls: RawToolCall[];
  finishReason: string | null | undefined;
  usage: OpenAI.CompletionUsage | null | undefined;
  model: string | undefined;
}): LlmResponse {
  const parts: Part[] = [];
  if (input.text.length > 0) parts.push({ text: input.text });
  const calls = toFunctionCallParts(input.toolCalls);
  parts.push(...calls.parts);
  const response: LlmResponse = {};
  if (parts.length > 0) response.content = { role: "model", parts };
  const finishReason = mapFinishReason(input.finishReason);
  if (finishReason !== undefined) response.finishReason = finishReason;
  const usage = toUsageMetadata(input.usage);
  if (usage) response.usageMetadata = usage;
  if (input.model) response.modelVersion = input.model;
  if (calls.malformed.length > 0) {
    response.errorCode = "MALFORMED_FUNCTION_CALL";
    response.errorMessage = `The model sent function-call arguments that are not a JSON object: ${calls.malformed.join("; ")}`;
  } else if (input.refusal.length > 0 && parts.length === 0) {
    response.errorCode = "REFUSAL";
    response.errorMessage = input.refusal;
  }
  return response;
}

/** Converts a non-streaming Chat Completion into one complete response. */
export function fromChatCompletion(completion: OpenAI.Chat.ChatCompletion): LlmResponse {
  const choice = completion.choices?.[0];
  if (!choice) throw new GenAiFieldMissingError("choices", "the OpenAI chat completion");
  const message = choice.message;
  if (!message) throw new GenAiFieldMissingError("choices[0].message", "the OpenAI chat completion");
  const toolCalls: RawToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    if (call.type !== "function") continue;
    toolCalls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  return buildResponse({
    text: message.content ?? "",
    refusal: message.refusal ?? "",
    toolCalls,
    finishReason: choice.finish_reason,
    usage: completion.usage,
    model: completion.model,
  });
}

/**
 * Folds streamed chunks: `push` returns a partial response for each text delta; tool-call
 * deltas are assembled by index (id and name from the first delta, arguments concatenated);
 * `finish` returns the complete response.
 */
export class ChatCompletionStreamAccumulator {
  private text = "";
  private refusal = "";
  private readonly toolCalls = new Map<number, RawToolCall>();
  private finishReason: string | null | undefined;
  private usage: OpenAI.CompletionUsage | null | undefined;
  private model: string | undefined;

  push(chunk: OpenAI.Chat.ChatCompletionChunk): LlmResponse | undefined {
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) return undefined;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (delta.refusal) this.refusal += delta.refusal;
    for (const call of delta.tool_calls ?? []) {
      const existing = this.toolCalls.get(call.index);
      if (existing) {
        if (call.id && !existing.id) existing.id = call.id;
        if (call.function?.name && !existing.name) existing.name = call.function.name;
        existing.arguments += call.function?.arguments ?? "";
      } else {
        this.toolCalls.set(call.index, {
          id: call.id ?? "",
          name: call.function?.name ?? "",
          arguments: call.function?.arguments ?? "",
        });
      }
    }
    if (typeof delta.content === "string" && delta.content.length > 0) {
      this.text += delta.content;
      return { content: { role: "model", parts: [{ text: delta.content }] }, partial: true };
    }
    return undefined;
  }

  /** Whether a choice reported its finish_reason (a complete stream always does). */
  get finished(): boolean {
    return this.finishReason !== undefined && this.finishReason !== null;
  }

  finish(): LlmResponse {
    const toolCalls = [...this.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    return buildResponse({
      text: this.text,
      refusal: this.refusal,
      toolCalls,
      finishReason: this.finishReason,
      usage: this.usage,
      model: this.model,
    });
  }
}
