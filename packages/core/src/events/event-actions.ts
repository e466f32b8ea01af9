import { assignOwn } from "../sessions/own-keys.js";
import type { Content } from "../content/content.js";

/** Replaces a range of history with a summary (honoured when building model requests). */
export interface EventCompaction {
  /** Timestamp (float seconds) of the first compacted event. */
  startTimestamp?: number;
  /** Timestamp (float seconds) of the last compacted event; events up to it are replaced. */
  endTimestamp: number;
  /** The content that stands in for the compacted events. */
  compactedContent: Content;
}

/** What a tool asked the user to confirm, and the answer once given. */
export interface ToolConfirmation {
  hint?: string;
  confirmed: boolean;
  payload?: unknown;
}

/** What a node or tool asked the client to provide (`adk_request_input`), keyed by the call id. */
export interface InputRequest {
  /** Shown to the person answering. */
  message?: string;
  /** Data for the client (e.g. what is being approved). */
  payload?: unknown;
  /** JSON Schema of the expected answer, when the requester gave one. */
  responseSchema?: Record<string, unknown>;
}

/** A workflow route: a node's output selects the edges with a matching route. */
export type RouteValue = string | number | boolean;

/** Side effects an event carries; the session service applies them on append. */
export interface EventActions {
  /** State changes (keys may carry `app:`, `user:`, `temp:` prefixes). */
  stateDelta: Record<string, unknown>;
  /** Artifact filename to the version this event wrote. */
  artifactDelta: Record<string, number>;
  /** Auth requests keyed by function-call id. */
  requestedAuthConfigs: Record<string, unknown>;
  /** Tool confirmations requested, keyed by the original function-call id. */
  requestedToolConfirmations: Record<string, ToolConfirmation>;
  /** Do not summarize this function response with the model; end the turn. */
  skipSummarization?: boolean;
  /** Hand the invocation to the named agent. */
  transferToAgent?: string;
  /** Ask the parent (e.g. a LoopAgent) to stop. */
  escalate?: boolean;
  /** The agent that authored this event has finished. */
  endOfAgent?: boolean;
  /** @deprecated Ends the whole invocation; prefer `escalate` / `endOfAgent`. */
  endInvocation?: boolean;
  /** Artifacts deleted by this event. */
  deletedArtifactIds?: string[];
  compaction?: EventCompaction;
  /** A workflow or agent checkpoint (what resuming needs; see docs/workflows.md). */
  agentState?: Record<string, unknown>;
  rewindBeforeInvocationId?: string;
  /** Workflows: the route(s) the node that wrote this event chose. */
  route?: RouteValue | RouteValue[];
  /** Input requested from the client (`adk_request_input` calls of this event), keyed by call id. */
  requestedInputs?: Record<string, InputRequest>;
}

/**
 * Whether `actions` already has its four maps, so that `createEventActions(actions)` would give an
 * equal record with its keys in the same order (what the wire format and the stores keep).
 */
export function hasActionMaps(actions: EventActions | undefined): actions is EventActions {
  return (
    actions != null &&
    actions.stateDelta != null &&
    actions.artifactDelta != null &&
    actions.requestedAuthConfigs != null &&
    actions.requestedToolConfirmations != null
  );
}

/** A fresh `EventActions` with its four maps present (as the wire format always carries them). */
export function createEventActions(init: Partial<EventActions> = {}): EventActions {
  return {
    ...init,
    stateDelta: init.stateDelta ?? {},
    artifactDelta: init.artifactDelta ?? {},
    requestedAuthConfigs: init.requestedAuthConfigs ?? {},
    requestedToolConfirmations: init.requestedToolConfirmations ?? {},
  };
}

/** Merges actions in order; later maps win key by key, later flags win when set. */
export function mergeEventActions(...list: (Partial<EventActions> | undefined)[]): EventActions {
  const merged = createEventActions();
  for (const a of list) {
    if (!a) continue;
    // `for…in` with an own check: the keys of `Object.entries` without its pair arrays.
    for (const k in a) {
      if (!Object.hasOwn(a, k)) continue;
      const v = (a as Record<string, unknown>)[k];
      if (v === undefined) continue;
      if (
        k === "stateDelta" ||
        k === "artifactDelta" ||
        k === "requestedAuthConfigs" ||
        k === "requestedToolConfirmations" ||
        k === "requestedInputs"
      ) {
        if (k === "requestedInputs") merged.requestedInputs ??= {};
        assignOwn(merged[k] as Record<string, unknown>, v as Record<string, unknown>);
      } else if (k === "deletedArtifactIds") {
        merged.deletedArtifactIds = [...new Set([...(merged.deletedArtifactIds ?? []), ...(v as string[])])];
      } else {
        (merged as unknown as Record<string, unknown>)[k] = v;
      }
    }
  }
  return merged;
}
