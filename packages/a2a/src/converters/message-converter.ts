import { randomUUID } from "node:crypto";
import { Role, type Message, type Part as A2aPart } from "@a2a-js/sdk";
import type { Content, Event, Part } from "@agentkit/core";
import { partFromA2a, partToA2a, type PartToA2aOptions } from "./part-converter.js";
import { A2AMetadataKey, AdkMetadataKey } from "./metadata.js";

/** The A2A parts of a content (parts A2A cannot carry are dropped). */
export function contentToA2aParts(content: Content | undefined, options: PartToA2aOptions = {}): A2aPart[] {
  const out: A2aPart[] = [];
  for (const part of content?.parts ?? []) {
    const converted = partToA2a(part, options);
    if (converted) out.push(converted);
  }
  return out;
}

/** The agentkit parts of A2A parts. */
export function a2aPartsToParts(parts: readonly A2aPart[]): Part[] {
  const out: Part[] = [];
  for (const part of parts) {
    const converted = partFromA2a(part);
    if (converted) out.push(converted);
  }
  return out;
}

export interface ContentToA2aMessageOptions extends PartToA2aOptions {
  contextId?: string;
  taskId?: string;
  messageId?: string;
  /** Defaults to the content's role: `user` → user, anything else → agent. */
  role?: Role;
  metadata?: Record<string, unknown>;
}

/** A content as an A2A message (every protobuf field filled). */
export function contentToA2aMessage(content: Content, options: ContentToA2aMessageOptions = {}): Message {
  return {
    messageId: options.messageId ?? randomUUID(),
    contextId: options.contextId ?? "",
    taskId: options.taskId ?? "",
    role: options.role ?? (content.role === "user" ? Role.ROLE_USER : Role.ROLE_AGENT),
    parts: contentToA2aParts(content, options),
    metadata: options.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** An A2A message as a content (`user` for the user role, `model` otherwise). */
export function a2aMessageToContent(message: Pick<Message, "role" | "parts">): Content {
  return { role: message.role === Role.ROLE_USER ? "user" : "model", parts: a2aPartsToParts(message.parts ?? []) };
}

/** Where an event ran, for its A2A metadata. */
export interface EventMetadataContext {
  appName: string;
  userId: string;
  sessionId: string;
}

/** The `adk_`-prefixed metadata describing an event (identity, errors, usage, grounding). */
export function eventMetadata(event: Event, context: EventMetadataContext): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    [AdkMetadataKey.APP_NAME]: context.appName,
    [AdkMetadataKey.USER_ID]: context.userId,
    [AdkMetadataKey.SESSION_ID]: context.sessionId,
    [AdkMetadataKey.INVOCATION_ID]: event.invocationId,
    [AdkMetadataKey.AUTHOR]: event.author,
    [AdkMetadataKey.EVENT_ID]: event.id,
  };
  if (event.branch) metadata[AdkMetadataKey.BRANCH] = event.branch;
  if (event.partial) metadata[AdkMetadataKey.PARTIAL] = true;
  if (event.errorCode) metadata[A2AMetadataKey.ERROR_CODE] = event.errorCode;
  if (event.errorMessage) metadata[AdkMetadataKey.ERROR_MESSAGE] = event.errorMessage;
  if (event.customMetadata) metadata[A2AMetadataKey.CUSTOM_METADATA] = jsonCopy(event.customMetadata);
  if (event.groundingMetadata) metadata[A2AMetadataKey.GROUNDING_METADATA] = jsonCopy(event.groundingMetadata);
  if (event.usageMetadata) metadata[AdkMetadataKey.USAGE_METADATA] = jsonCopy(event.usageMetadata);
  return metadata;
}

function jsonCopy(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** An event's content as an A2A agent message carrying the event's metadata. */
export function eventToA2aMessage(
  event: Event,
  options: { contextId: string; taskId: string; context: EventMetadataContext },
): Message {
  return contentToA2aMessage(event.content ?? { parts: [] }, {
    contextId: options.contextId,
    taskId: options.taskId,
    role: Role.ROLE_AGENT,
    longRunningToolIds: event.longRunningToolIds,
    metadata: eventMetadata(event, options.context),
  });
}
