import { z } from "zod";
import {
  AgentKitError,
  contentFromJson,
  InvalidUserMessageError,
  normalizeBase64,
  type Content,
  type LiveRequest,
} from "@agentkit/core";
import { checkIncomingParts } from "@agentkit/core/internal";
import { lazySchema } from "@agentkit/core/internal";

const liveRequestSchema = lazySchema(() => {
  const blobSchema = z
    .object({
      mimeType: z.string().optional(),
      mime_type: z.string().optional(),
      data: z.string(),
      displayName: z.string().optional(),
      display_name: z.string().optional(),
    })
    .refine((b) => b.mimeType !== undefined || b.mime_type !== undefined, {
      message: "blob needs mime_type (or mimeType)",
    });

  return z.object({
    content: z.record(z.string(), z.unknown()).nullish(),
    blob: blobSchema.nullish(),
    close: z.boolean().nullish(),
    activity_start: z.unknown().optional(),
    activity_end: z.unknown().optional(),
    activityStart: z.unknown().optional(),
    activityEnd: z.unknown().optional(),
  });
});

/** A malformed client frame: answered with an error frame, the socket stays open (as ADK Java). */
export class LiveMessageError extends AgentKitError {
  readonly details: string;

  constructor(message: string, details: string) {
    super("INVALID_LIVE_REQUEST", message);
    this.details = details;
  }
}

/**
 * Reads one client text frame of `/run_live` (http-api.md section 6) as LiveRequests, in the
 * order Python applies them: blob, then content, then close. Activity signals are accepted and
 * ignored (no model of ours uses explicit voice-activity markers).
 */
export function parseLiveMessage(text: string): LiveRequest[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new LiveMessageError("Invalid JSON format for LiveRequest", (error as Error).message);
  }
  const parsed = liveRequestSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const details = issue
      ? `${issue.path.map(String).join(".") || "message"}: ${issue.message}`
      : "invalid LiveRequest";
    throw new LiveMessageError("Invalid LiveRequest", details);
  }
  const message = parsed.data;
  const out: LiveRequest[] = [];
  if (message.blob) {
    const b = message.blob;
    const displayName = b.displayName ?? b.display_name;
    out.push({
      blob: {
        mimeType: (b.mimeType ?? b.mime_type)!,
        data: normalizeBase64(b.data),
        ...(displayName ? { displayName } : {}),
      },
    });
  }
  if (message.content) {
    let content: Content;
    try {
      content = contentFromJson(message.content);
    } catch (error) {
      throw new LiveMessageError("Invalid LiveRequest", `content: ${(error as Error).message}`);
    }
    try {
      // What needs no history is refused here, with an error frame; an answer to a call that is
      // not pending is refused by the live flow itself (the run then ends).
      checkIncomingParts(content);
    } catch (error) {
      if (error instanceof InvalidUserMessageError) throw new LiveMessageError("Refused LiveRequest", error.message);
      throw error;
    }
    out.push({ content });
  }
  if (message.close) out.push({ close: true });
  return out;
}
