import { FinishReason } from "@agentkit/core";

/** Maps a Chat Completions `finish_reason` to the Gemini-shaped finish reason. */
export function mapFinishReason(reason: string | null | undefined): FinishReason | undefined {
  switch (reason) {
    case null:
    case undefined:
      return undefined;
    case "stop":
    case "tool_calls":
    case "function_call":
      return FinishReason.STOP;
    case "length":
      return FinishReason.MAX_TOKENS;
    case "content_filter":
      return FinishReason.SAFETY;
    default:
      return FinishReason.OTHER;
  }
}
