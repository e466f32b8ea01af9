import { FinishReason } from "@agentkit/core";

/** Finish reasons that mean the response was blocked; they become an `errorCode` on the response. */
const BLOCKED = new Set<string>([
  FinishReason.SAFETY,
  FinishReason.RECITATION,
  FinishReason.BLOCKLIST,
  FinishReason.PROHIBITED_CONTENT,
  FinishReason.SPII,
  FinishReason.IMAGE_SAFETY,
  FinishReason.MALFORMED_FUNCTION_CALL,
  FinishReason.UNEXPECTED_TOOL_CALL,
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
  "IMAGE_OTHER",
  "NO_IMAGE",
  "LANGUAGE",
]);

/** Gemini's finish reasons are agentkit's already; the unspecified one means "none". */
export function toFinishReason(reason: string | undefined | null): string | undefined {
  if (!reason || reason === FinishReason.FINISH_REASON_UNSPECIFIED) return undefined;
  return reason;
}

/** Whether a finish reason reports blocked or unusable output (as opposed to a normal stop). */
export function isBlockingFinishReason(reason: string | undefined): boolean {
  return reason !== undefined && BLOCKED.has(reason);
}
