import type { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { FinishReason, type LlmResponse, type Part, type UsageMetadata } from "@agentkit/core";
import type { ConversionIssues } from "../framework/conversion-issues.js";

/** Text and reasoning of a message or chunk (string content, or text / reasoning / thinking blocks). */
export function textsOf(message: AIMessage | AIMessageChunk): { text: string; thought: string } {
  const content = message.content as unknown;
  if (typeof content === "string") return { text: content, thought: "" };
  let text = "";
  let thought = "";
  if (Array.isArray(content)) {
    for (const block of content as Array<Record<string, unknown>>) {
      if (block.type === "text" && typeof block.text === "string") text += block.text;
      else if (block.type === "reasoning" && typeof block.reasoning === "string") thought += block.reasoning;
      else if (block.type === "thinking" && typeof block.thinking === "string") thought += block.thinking;
    }
  }
  return { text, thought };
}

/** Finish reasons of the common LangChain providers (`finish_reason` / `stop_reason` in response_metadata). */
export function mapLangChainFinishReason(metadata: Record<string, unknown> | undefined): string | undefined {
  const raw = metadata?.finish_reason ?? metadata?.stop_reason ?? metadata?.finishReason;
  if (typeof raw !== "string" || raw === "") return undefined;
  switch (raw.toLowerCase()) {
    case "stop":
    case "end_turn":
    case "tool_calls":
    case "tool_use":
    case "stop_sequence":
      return FinishReason.STOP;
    case "length":
    case "max_tokens":
      return FinishReason.MAX_TOKENS;
    case "content_filter":
    case "safety":
    case "refusal":
      return FinishReason.SAFETY;
    default:
      return FinishReason.OTHER;
  }
}

export function toUsageMetadata(message: AIMessage | AIMessageChunk): UsageMetadata | undefined {
  const usage = message.usage_metadata;
  if (!usage) return undefined;
  const metadata: UsageMetadata = {
    promptTokenCount: usage.input_tokens,
    candidatesTokenCount: usage.output_tokens,
    totalTokenCount: usage.total_tokens,
  };
  const cached = usage.input_token_details?.cache_read;
  if (typeof cached === "number" && cached > 0) metadata.cachedContentTokenCount = cached;
  const reasoning = usage.output_token_details?.reasoning;
  if (typeof reasoning === "number" && reasoning > 0) metadata.thoughtsTokenCount = reasoning;
  return metadata;
}

/**
 * The complete response for a LangChain AI message: thought, text, then `tool_calls` as
 * function calls with their ids. `invalid_tool_calls` (arguments that are not JSON) are
 * reported to `issues`; without validation they become calls with `args: {}` and the response
 * gets `errorCode: "MALFORMED_FUNCTION_CALL"` so the flow answers the model.
 */
export function fromAiMessage(
  message: AIMessage | AIMessageChunk,
  issues: ConversionIssues,
  textOverride?: string,
): LlmResponse {
  const { text, thought } = textsOf(message);
  const parts: Part[] = [];
  const signed = signedThinkingBlocks(message);
  if (signed.length > 0) parts.push(...signed);
  else if (thought !== "") parts.push({ text: thought, thought: true });
  const answer = textOverride ?? text;
  if (answer !== "") parts.push({ text: answer });
  for (const call of message.tool_calls ?? []) {
    parts.push({ functionCall: { id: call.id ?? call.name, name: call.name, args: call.args } });
  }
  const malformed: string[] = [];
  (message.invalid_tool_calls ?? []).forEach((call, i) => {
    const name = call.name ?? "";
    issues.report(
      `invalid_tool_calls[${i}] (${name})`,
      `the model sent arguments that are not a JSON object: ${call.args ?? ""}`,
    );
    malformed.push(`${name}: ${call.args ?? ""}`);
    parts.push({ functionCall: { id: call.id ?? name, name, args: {} } });
  });
  issues.settle();
  const response: LlmResponse = {};
  if (parts.length > 0) response.content = { role: "model", parts };
  const metadata = message.response_metadata as Record<string, unknown> | undefined;
  const finishReason = mapLangChainFinishReason(metadata);
  if (finishReason !== undefined) response.finishReason = finishReason;
  const usage = toUsageMetadata(message);
  if (usage) response.usageMetadata = usage;
  const modelName = metadata?.model_name ?? metadata?.model;
  if (typeof modelName === "string" && modelName !== "") response.modelVersion = modelName;
  if (malformed.length > 0) {
    response.errorCode = "MALFORMED_FUNCTION_CALL";
    response.errorMessage = `The model sent function-call arguments that are not a JSON object: ${malformed.join("; ")}`;
  }
  return response;
}

const SIGNATURE_PREFIX = "lc1:";

/**
 * Thinking blocks a provider needs back verbatim on the next turn (Anthropic `thinking` with
 * its `signature`, `redacted_thinking`): one thought part each, the block kept in the part's
 * opaque `thoughtSignature` as `lc1:` + base64(JSON).
 */
function signedThinkingBlocks(message: AIMessage | AIMessageChunk): Part[] {
  const content = message.content as unknown;
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const block of content as Array<Record<string, unknown>>) {
    const signedThinking = block.type === "thinking" && typeof block.signature === "string" && block.signature !== "";
    if (!signedThinking && block.type !== "redacted_thinking") continue;
    const { index: _index, ...kept } = block;
    const signature = SIGNATURE_PREFIX + Buffer.from(JSON.stringify(kept), "utf8").toString("base64");
    parts.push({
      text: typeof block.thinking === "string" ? block.thinking : "",
      thought: true,
      thoughtSignature: signature,
    });
  }
  return parts;
}

/** The content block a thought part of this adapter came from; undefined for other signatures. */
export function thinkingBlockOf(signature: string | undefined): Record<string, unknown> | undefined {
  if (signature === undefined || !signature.startsWith(SIGNATURE_PREFIX)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(signature.slice(SIGNATURE_PREFIX.length), "base64").toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
