import type Anthropic from "@anthropic-ai/sdk";
import { ModelError } from "@agentkit/core";
import type { LlmResponse, Part, UsageMetadata } from "@agentkit/core";
import { toFinishReason } from "./finish-reason.js";

type UsageLike = {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
};

/** A complete Messages API response → one complete `LlmResponse`. */
export function fromAnthropicMessage(message: Anthropic.Messages.Message): LlmResponse {
  const parts: Part[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push({ text: block.text });
    else if (block.type === "thinking")
      parts.push({ text: block.thinking, thought: true, thoughtSignature: block.signature });
    else if (block.type === "redacted_thinking") parts.push({ thought: true, thoughtSignature: block.data });
    else if (block.type === "tool_use") parts.push(toFunctionCallPart(block.id, block.name, block.input));
  }
  return completeResponse(parts, message.usage, message.stop_reason, message.model);
}

/** Usage → Gemini usage metadata; cache reads and writes count as prompt tokens. */
export function toUsageMetadata(usage: UsageLike): UsageMetadata {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const prompt = (usage.input_tokens ?? 0) + cacheRead + (usage.cache_creation_input_tokens ?? 0);
  const candidates = usage.output_tokens ?? 0;
  const metadata: UsageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates,
  };
  if (usage.cache_read_input_tokens != null) metadata.cachedContentTokenCount = cacheRead;
  return metadata;
}

function completeResponse(
  parts: Part[],
  usage: UsageLike,
  stopReason: string | null,
  model: string | undefined,
): LlmResponse {
  const response: LlmResponse = { content: { role: "model", parts }, usageMetadata: toUsageMetadata(usage) };
  const finishReason = toFinishReason(stopReason);
  if (finishReason) response.finishReason = finishReason;
  if (model) response.modelVersion = model;
  return response;
}

function toFunctionCallPart(id: string, name: string, input: unknown): Part {
  const args = input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  return { functionCall: { id, name, args } };
}

interface BlockState {
  type: string;
  text: string;
  signature?: string;
  id?: string;
  name?: string;
  initialInput?: unknown;
  json: string;
}

/**
 * Folds the raw stream events into partial chunks (text and thoughts, as they arrive) and,
 * at the end, one complete response with every block, tool inputs assembled from their
 * `input_json_delta`s, usage and finish reason.
 */
export class AnthropicStreamAccumulator {
  private readonly blocks = new Map<number, BlockState>();
  private usage: UsageLike = {};
  private stopReason: string | null = null;
  private model: string | undefined;
  private done = false;

  /** True once `message_stop` arrived. */
  get finished(): boolean {
    return this.done;
  }

  /** Applies one event; returns the partial chunk to yield, if any. */
  apply(event: Anthropic.Messages.RawMessageStreamEvent): LlmResponse | undefined {
    switch (event.type) {
      case "message_start":
        this.model = event.message.model;
        this.usage = { ...event.message.usage };
        return undefined;
      case "content_block_start": {
        const block = event.content_block;
        const state: BlockState = { type: block.type, text: "", json: "" };
        if (block.type === "text") state.text = block.text;
        else if (block.type === "thinking") {
          state.text = block.thinking;
          state.signature = block.signature;
        } else if (block.type === "redacted_thinking") {
          state.signature = block.data;
        } else if (block.type === "tool_use") {
          state.id = block.id;
          state.name = block.name;
          state.initialInput = block.input;
        }
        this.blocks.set(event.index, state);
        if (state.text.length > 0 && (block.type === "text" || block.type === "thinking")) {
          return partialChunk(state.text, block.type === "thinking");
        }
        return undefined;
      }
      case "content_block_delta": {
        const state = this.blocks.get(event.index);
        if (!state) return undefined;
        const delta = event.delta;
        if (delta.type === "text_delta") {
          state.text += delta.text;
          return delta.text.length > 0 ? partialChunk(delta.text, false) : undefined;
        }
        if (delta.type === "thinking_delta") {
          state.text += delta.thinking;
          return delta.thinking.length > 0 ? partialChunk(delta.thinking, true) : undefined;
        }
        if (delta.type === "signature_delta") state.signature = (state.signature ?? "") + delta.signature;
        else if (delta.type === "input_json_delta") state.json += delta.partial_json;
        return undefined;
      }
      case "message_delta": {
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        const u = event.usage;
        this.usage = {
          ...this.usage,
          output_tokens: u.output_tokens,
          ...(u.input_tokens != null ? { input_tokens: u.input_tokens } : {}),
          ...(u.cache_read_input_tokens != null ? { cache_read_input_tokens: u.cache_read_input_tokens } : {}),
          ...(u.cache_creation_input_tokens != null
            ? { cache_creation_input_tokens: u.cache_creation_input_tokens }
            : {}),
        };
        return undefined;
      }
      case "message_stop":
        this.done = true;
        return undefined;
      default:
        return undefined;
    }
  }

  /** The complete response from everything seen so far. */
  complete(): LlmResponse {
    const parts: Part[] = [];
    for (const index of [...this.blocks.keys()].sort((a, b) => a - b)) {
      const state = this.blocks.get(index)!;
      if (state.type === "text") {
        if (state.text.length > 0) parts.push({ text: state.text });
      } else if (state.type === "thinking") {
        const part: Part = { text: state.text, thought: true };
        if (state.signature) part.thoughtSignature = state.signature;
        parts.push(part);
      } else if (state.type === "redacted_thinking") {
        if (state.signature) parts.push({ thought: true, thoughtSignature: state.signature });
      } else if (state.type === "tool_use") {
        parts.push(toFunctionCallPart(state.id ?? "", state.name ?? "", this.toolInput(state)));
      }
    }
    return completeResponse(parts, this.usage, this.stopReason, this.model);
  }

  private toolInput(state: BlockState): unknown {
    if (state.json.trim().length === 0) return state.initialInput ?? {};
    try {
      return JSON.parse(state.json);
    } catch (error) {
      throw new ModelError(
        `Anthropic streamed invalid JSON arguments for tool "${state.name ?? ""}" (${state.json.slice(0, 200)}). ` +
          `Retry the request.`,
        { code: "MALFORMED_FUNCTION_CALL", cause: error },
      );
    }
  }
}

function partialChunk(text: string, thought: boolean): LlmResponse {
  return { content: { role: "model", parts: [thought ? { text, thought: true } : { text }] }, partial: true };
}
