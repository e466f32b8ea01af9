import { FinishReason } from "@agentkit/core";

/** Maps an Anthropic `stop_reason` to a Gemini-style finish reason. */
export function toFinishReason(stopReason: string | null | undefined): string | undefined {
  switch (stopReason) {
    case null:
    case undefined:
      return undefined;
    case "end_turn":
    case "stop_sequence":
    case "tool_use":
      return FinishReason.STOP;
    case "max_tokens":
    case "model_context_window_exceeded":
      return FinishReason.MAX_TOKENS;
    case "refusal":
      return FinishReason.SAFETY;
    default:
      return FinishReason.OTHER;
  }
}
