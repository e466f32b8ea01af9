import type { Part as A2aPart } from "@a2a-js/sdk";
import type { Event, InvocationContext, Part } from "@agentkit/core";
import { isEventInBranch, sessionEvents } from "@agentkit/core/internal";
import { contentToA2aParts } from "../converters/message-converter.js";
import { AdkMetadataKey } from "../converters/metadata.js";

/** What to send to the remote agent for this turn. */
export interface OutgoingTurn {
  parts: A2aPart[];
  /** The A2A context of this agent's earlier exchanges in the session. */
  contextId?: string;
  /** The remote task that waits for input (input-required), to continue it. */
  taskId?: string;
  /** Artifacts the waiting task already reported. */
  knownArtifactCount?: number;
}

const WAITING_STATES = new Set(["input-required", "auth-required"]);

/**
 * The conversation since this agent last replied, as ADK's RemoteA2aAgent builds it: the
 * user's messages as they are, other agents' replies presented as context text; the ids of
 * the remote context (and of a waiting task) come from this agent's latest event.
 */
export function buildOutgoingTurn(ctx: InvocationContext, agentName: string): OutgoingTurn {
  const parts: A2aPart[][] = [];
  let contextId: string | undefined;
  let taskId: string | undefined;
  let knownArtifactCount: number | undefined;
  const events = sessionEvents(ctx.session);
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.author === agentName) {
      const custom = event.customMetadata ?? {};
      if (typeof custom[AdkMetadataKey.CONTEXT_ID] === "string")
        contextId = custom[AdkMetadataKey.CONTEXT_ID] as string;
      const state = custom[AdkMetadataKey.TASK_STATE];
      if (
        typeof state === "string" &&
        WAITING_STATES.has(state) &&
        typeof custom[AdkMetadataKey.TASK_ID] === "string"
      ) {
        taskId = custom[AdkMetadataKey.TASK_ID] as string;
        const count = custom[AdkMetadataKey.ARTIFACT_COUNT];
        if (typeof count === "number") knownArtifactCount = count;
      }
      break;
    }
    if (event.partial || !isEventInBranch(ctx.branch, event) || !event.content?.parts?.length) continue;
    parts.unshift(
      event.author === "user"
        ? contentToA2aParts(event.content)
        : contentToA2aParts({ parts: presentOtherAgent(event) }),
    );
  }
  return { parts: parts.flat(), contextId, taskId, knownArtifactCount };
}

/** Another agent's reply as context text (its calls and results described, thoughts dropped). */
function presentOtherAgent(event: Event): Part[] {
  const out: Part[] = [{ text: "For context:" }];
  for (const part of event.content?.parts ?? []) {
    if (part.thought) continue;
    if (typeof part.text === "string" && part.text.trim()) out.push({ text: `[${event.author}] said: ${part.text}` });
    else if (part.functionCall) {
      out.push({
        text:
          `[${event.author}] called tool \`${part.functionCall.name}\` with ` +
          `parameters: ${JSON.stringify(part.functionCall.args ?? {})}`,
      });
    } else if (part.functionResponse) {
      out.push({
        text:
          `[${event.author}] \`${part.functionResponse.name}\` tool returned ` +
          `result: ${JSON.stringify(part.functionResponse.response ?? {})}`,
      });
    } else if (part.inlineData || part.fileData) out.push(part);
  }
  return out.length > 1 ? out : [];
}
