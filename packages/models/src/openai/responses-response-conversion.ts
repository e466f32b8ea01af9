import type OpenAI from "openai";
import { GenAiFieldMissingError } from "../errors/genai-field-missing-error.js";
import { FinishReason, type LlmResponse, type Part, type UsageMetadata } from "@agentkit/core";

type ApiResponse = OpenAI.Responses.Response;

function toUsage(usage: OpenAI.Responses.ResponseUsage | null | undefined): UsageMetadata | undefined {
  if (!usage) return undefined;
  const metadata: UsageMetadata = {
    promptTokenCount: usage.input_tokens,
    candidatesTokenCount: usage.output_tokens,
    totalTokenCount: usage.total_tokens,
  };
  const cached = usage.input_tokens_details?.cached_tokens;
  if (typeof cached === "number") metadata.cachedContentTokenCount = cached;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") metadata.thoughtsTokenCount = reasoning;
  return metadata;
}

function toFinishReason(response: ApiResponse): string | undefined {
  if (response.status === "completed") return FinishReason.STOP;
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    if (reason === "max_output_tokens") return FinishReason.MAX_TOKENS;
    if (reason === "content_filter") return FinishReason.SAFETY;
    return FinishReason.OTHER;
  }
  return response.status ? FinishReason.OTHER : undefined;
}

/**
 * Converts a Responses API result into one complete response: output messages become text,
 * `function_call` items function calls (args parsed; malformed JSON as in the chat path:
 * `args: {}` and `errorCode: "MALFORMED_FUNCTION_CALL"`); reasoning items are dropped.
 */
export function fromResponsesResult(response: ApiResponse): LlmResponse {
  // A completed response always has output items; failed and incomplete ones may have none.
  if (
    (response.output ?? []).length === 0 &&
    response.status !== "failed" &&
    response.status !== "incomplete" &&
    !response.error
  ) {
    throw new GenAiFieldMissingError("output", "the OpenAI Responses API result");
  }
  let text = "";
  const calls: Part[] = [];
  const malformed: string[] = [];
  for (const item of response.output ?? []) {
    if (item.type === "message") {
      for (const content of item.content) if (content.type === "output_text") text += content.text;
    } else if (item.type === "function_call") {
      let args: Record<string, unknown> = {};
      try {
        const parsed: unknown = item.arguments.trim().length > 0 ? JSON.parse(item.arguments) : {};
        if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
          args = parsed as Record<string, unknown>;
        else malformed.push(`${item.name}: ${item.arguments}`);
      } catch {
        malformed.push(`${item.name}: ${item.arguments}`);
      }
      calls.push({ functionCall: { id: item.call_id, name: item.name, args } });
    }
  }
  const parts: Part[] = text.length > 0 ? [{ text }, ...calls] : calls;
  const result: LlmResponse = {};
  if (parts.length > 0) result.content = { role: "model", parts };
  const finishReason = toFinishReason(response);
  if (finishReason) result.finishReason = finishReason;
  const usage = toUsage(response.usage);
  if (usage) result.usageMetadata = usage;
  if (response.model) result.modelVersion = response.model;
  if (malformed.length > 0) {
    result.errorCode = "MALFORMED_FUNCTION_CALL";
    result.errorMessage = `The model sent function-call arguments that are not a JSON object: ${malformed.join("; ")}`;
  } else if (response.error) {
    result.errorCode = response.error.code ?? "RESPONSE_FAILED";
    result.errorMessage = response.error.message;
  }
  return result;
}

/**
 * Streams Responses API events: each `response.output_text.delta` becomes a partial; the
 * terminal event (`response.completed` / `response.incomplete` / `response.failed`) carries
 * the whole response, converted as the complete one. Its text is the deltas joined.
 */
export class ResponsesStreamAccumulator {
  private final: ApiResponse | undefined;

  push(event: OpenAI.Responses.ResponseStreamEvent): LlmResponse | undefined {
    switch (event.type) {
      case "response.output_text.delta":
        return event.delta.length > 0
          ? { content: { role: "model", parts: [{ text: event.delta }] }, partial: true }
          : undefined;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        this.final = event.response;
        return undefined;
      default:
        return undefined;
    }
  }

  /** The complete response, or undefined when the stream ended without a terminal event. */
  finish(): LlmResponse | undefined {
    return this.final ? fromResponsesResult(this.final) : undefined;
  }
}
