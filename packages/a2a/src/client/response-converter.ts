import {
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Part as A2aPart,
  type StreamResponse,
  type Task,
  type TaskStatus,
} from "@a2a-js/sdk";
import { createEvent, type Event } from "@agentkit/core";
import { a2aPartsToParts } from "../converters/message-converter.js";
import { A2AMetadataKey, AdkMetadataKey } from "../converters/metadata.js";
import { longRunningIdsOf } from "../converters/part-converter.js";
import { isErrorState, isWaitingState, taskStateName } from "../converters/task-state.js";

export interface ResponseConverterInit {
  author: string;
  invocationId: string;
  branch?: string;
  /** Id of the message we sent (skipped when reading a task's history). */
  sentMessageId: string;
  contextId?: string;
  taskId?: string;
  /** Artifacts of a continued task that earlier turns already reported. */
  knownArtifactCount?: number;
}

type Metadata = Record<string, unknown>;

function record(value: unknown): Metadata {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Metadata) : {};
}

/**
 * Turns what a remote A2A agent answers (a message, a task, or a stream of task updates)
 * into agentkit events, tracking the context id, task id and task state on the way.
 * Updates from an agentkit server carry `adk_event_id` and map one to one onto events;
 * artifact chunks of other servers become partial events and one complete event at the end.
 */
export class A2aResponseConverter {
  contextId?: string;
  taskId?: string;
  state?: TaskState;
  /** Artifacts the task held in the last task snapshot (non-streaming). */
  artifactCount?: number;
  private readonly seenEventIds = new Set<string>();
  private readonly chunks = new Map<string, A2aPart[]>();

  constructor(private readonly init: ResponseConverterInit) {
    this.contextId = init.contextId;
    this.taskId = init.taskId;
  }

  /** True while the remote task waits for input (the next message continues it). */
  get isWaiting(): boolean {
    return isWaitingState(this.state);
  }

  /** True once the task reached a final state (or a plain message answered). */
  get isDone(): boolean {
    return this.state === TaskState.TASK_STATE_COMPLETED || isErrorState(this.state) || this.isWaiting;
  }

  /** Events of a blocking `sendMessage` result. */
  fromSendResult(result: Message | Task): Event[] {
    if ("messageId" in result) return this.fromMessage(result);
    this.track(result.contextId, result.id, result.status?.state);
    const events: Event[] = [];
    const finalMessageId = result.status?.message?.messageId;
    const history = result.history ?? [];
    const sentIndex = history.findIndex((m) => m.messageId === this.init.sentMessageId);
    for (const message of history.slice(sentIndex + 1)) {
      if (message.messageId === finalMessageId || record(message.metadata)[AdkMetadataKey.PARTIAL] === true) continue;
      if (message.role === Role.ROLE_USER) continue;
      events.push(...this.contentEvent(message.parts, record(message.metadata)));
    }
    const artifacts = result.artifacts ?? [];
    this.artifactCount = artifacts.length;
    const known = result.id === this.init.taskId ? (this.init.knownArtifactCount ?? 0) : 0;
    for (const artifact of artifacts.slice(known))
      events.push(...this.contentEvent(artifact.parts, record(artifact.metadata)));
    events.push(...this.fromStatus(result.status));
    return events;
  }

  /** Events of one streamed response. */
  fromStreamResponse(response: StreamResponse): Event[] {
    const payload = response.payload;
    if (!payload) return [];
    switch (payload.$case) {
      case "message":
        return this.fromMessage(payload.value);
      case "task": {
        const task = payload.value;
        const state = task.status?.state;
        // The opening task of a stream announces the ids (a continued task still shows its
        // previous, waiting state); only a task that already ended reports its results.
        const ended = state === TaskState.TASK_STATE_COMPLETED || isErrorState(state);
        this.track(task.contextId, task.id, ended ? state : TaskState.TASK_STATE_SUBMITTED);
        if (!ended) return [];
        return [
          ...(task.artifacts ?? []).flatMap((a) => this.contentEvent(a.parts, record(a.metadata))),
          ...this.fromStatus(task.status),
        ];
      }
      case "statusUpdate": {
        const update = payload.value;
        this.track(update.contextId, update.taskId, update.status?.state);
        return this.fromStatus(update.status, record(update.metadata));
      }
      case "artifactUpdate": {
        const update = payload.value;
        this.track(update.contextId, update.taskId, undefined);
        return update.artifact
          ? this.fromArtifactUpdate(update.artifact, update.append, update.lastChunk, record(update.metadata))
          : [];
      }
      default:
        return [];
    }
  }

  private fromMessage(message: Message): Event[] {
    this.track(message.contextId, message.taskId || undefined, TaskState.TASK_STATE_COMPLETED);
    return this.contentEvent(message.parts, record(message.metadata));
  }

  private fromArtifactUpdate(
    artifact: Artifact,
    append: boolean,
    lastChunk: boolean,
    updateMetadata: Metadata,
  ): Event[] {
    const metadata = { ...record(artifact.metadata), ...updateMetadata };
    // An agentkit server sends one complete event per update (its id in the metadata).
    if (typeof metadata[AdkMetadataKey.EVENT_ID] === "string") {
      return artifact.parts.length > 0 ? this.contentEvent(artifact.parts, metadata) : [];
    }
    if (!append && lastChunk) return this.contentEvent(artifact.parts, metadata);
    const buffered = [...(append ? (this.chunks.get(artifact.artifactId) ?? []) : []), ...artifact.parts];
    if (lastChunk) {
      this.chunks.delete(artifact.artifactId);
      return this.contentEvent(mergeTextChunks(buffered), metadata);
    }
    this.chunks.set(artifact.artifactId, buffered);
    return this.contentEvent(artifact.parts, metadata, { partial: true });
  }

  private fromStatus(status: TaskStatus | undefined, updateMetadata: Metadata = {}): Event[] {
    const message = status?.message;
    const metadata = { ...record(message?.metadata), ...updateMetadata };
    const parts = message?.parts ?? [];
    const state = status?.state;
    if (isErrorState(state)) {
      const text = a2aPartsToParts(parts)
        .map((p) => p.text ?? "")
        .join("");
      const code =
        typeof metadata[A2AMetadataKey.ERROR_CODE] === "string"
          ? (metadata[A2AMetadataKey.ERROR_CODE] as string)
          : `A2A_TASK_${taskStateName(state).toUpperCase()}`;
      return [
        this.event([], metadata, {
          errorCode: code,
          errorMessage: text || `The remote agent's task ended in state ${taskStateName(state)}.`,
        }),
      ];
    }
    if (isWaitingState(state)) {
      const seen =
        typeof metadata[AdkMetadataKey.EVENT_ID] === "string" &&
        this.seenEventIds.has(metadata[AdkMetadataKey.EVENT_ID] as string);
      // Always end with an event recording the waiting task, so the next message continues it.
      return [this.event(seen ? [] : parts, metadata)];
    }
    if (parts.length === 0) return [];
    return this.contentEvent(parts, metadata, { partial: metadata[AdkMetadataKey.PARTIAL] === true });
  }

  private contentEvent(parts: readonly A2aPart[], metadata: Metadata, options: { partial?: boolean } = {}): Event[] {
    const eventId = metadata[AdkMetadataKey.EVENT_ID];
    if (!options.partial && typeof eventId === "string") {
      if (this.seenEventIds.has(eventId)) return [];
      this.seenEventIds.add(eventId);
    }
    if (parts.length === 0) return [];
    return [this.event(parts, metadata, options)];
  }

  private event(
    parts: readonly A2aPart[],
    metadata: Metadata,
    extra: { partial?: boolean; errorCode?: string; errorMessage?: string } = {},
  ): Event {
    const converted = a2aPartsToParts(parts);
    const longRunning = longRunningIdsOf(parts);
    const custom: Metadata = { ...record(metadata[A2AMetadataKey.CUSTOM_METADATA]) };
    if (this.contextId) custom[AdkMetadataKey.CONTEXT_ID] = this.contextId;
    if (this.taskId) custom[AdkMetadataKey.TASK_ID] = this.taskId;
    if (this.state !== undefined) custom[AdkMetadataKey.TASK_STATE] = taskStateName(this.state);
    if (this.isWaiting && this.artifactCount !== undefined) custom[AdkMetadataKey.ARTIFACT_COUNT] = this.artifactCount;
    const remoteError = metadata[A2AMetadataKey.ERROR_CODE];
    const remoteMessage = metadata[AdkMetadataKey.ERROR_MESSAGE];
    const grounding = metadata[A2AMetadataKey.GROUNDING_METADATA];
    return createEvent({
      invocationId: this.init.invocationId,
      author: this.init.author,
      branch: this.init.branch,
      content: converted.length > 0 ? { role: "model", parts: converted } : undefined,
      longRunningToolIds: longRunning.length > 0 ? longRunning : undefined,
      partial: extra.partial ? true : undefined,
      errorCode: extra.errorCode ?? (typeof remoteError === "string" ? remoteError : undefined),
      errorMessage: extra.errorMessage ?? (typeof remoteMessage === "string" ? remoteMessage : undefined),
      groundingMetadata: grounding && typeof grounding === "object" ? (grounding as Metadata) : undefined,
      customMetadata: custom,
    });
  }

  private track(contextId: string | undefined, taskId: string | undefined, state: TaskState | undefined): void {
    if (contextId) this.contextId = contextId;
    if (taskId) this.taskId = taskId;
    if (state !== undefined && state !== TaskState.TASK_STATE_UNSPECIFIED) this.state = state;
  }
}

/** Adjacent text chunks joined into one text part (other parts kept as they are). */
function mergeTextChunks(parts: readonly A2aPart[]): A2aPart[] {
  const out: A2aPart[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (part.content?.$case === "text" && last?.content?.$case === "text" && !part.metadata && !last.metadata) {
      out[out.length - 1] = { ...last, content: { $case: "text", value: last.content.value + part.content.value } };
    } else {
      out.push(part);
    }
  }
  return out;
}
