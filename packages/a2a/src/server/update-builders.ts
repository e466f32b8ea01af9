import { TaskState, type Message, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from "@a2a-js/sdk";
import type { Event } from "@agentkit/core";
import {
  contentToA2aParts,
  eventMetadata,
  eventToA2aMessage,
  type EventMetadataContext,
} from "../converters/message-converter.js";

type TaskIds = { taskId: string; contextId: string };

/** A status update (final for every state but submitted and working). */
export function statusUpdate(ids: TaskIds, state: TaskState, message?: Message): TaskStatusUpdateEvent {
  return { ...ids, status: { state, message, timestamp: new Date().toISOString() }, metadata: message?.metadata };
}

/** A streamed chunk (partial event) as a `working` status update flagged `adk_partial`. */
export function partialStatusUpdate(ids: TaskIds, event: Event, context: EventMetadataContext): TaskStatusUpdateEvent {
  return statusUpdate(ids, TaskState.TASK_STATE_WORKING, eventToA2aMessage(event, { ...ids, context }));
}

/** A complete event as an artifact update: its own artifact, or a chunk of the run's artifact. */
export function artifactUpdateFor(
  ids: TaskIds,
  event: Event,
  context: EventMetadataContext,
  runArtifact?: { artifactId: string; append: boolean },
): TaskArtifactUpdateEvent {
  const metadata = eventMetadata(event, context);
  return {
    ...ids,
    artifact: {
      artifactId: runArtifact?.artifactId ?? event.id,
      name: runArtifact ? "response" : event.author,
      description: "",
      parts: contentToA2aParts(event.content, { longRunningToolIds: event.longRunningToolIds }),
      metadata: runArtifact ? undefined : metadata,
      extensions: [],
    },
    append: runArtifact?.append ?? false,
    lastChunk: !runArtifact,
    metadata,
  };
}
