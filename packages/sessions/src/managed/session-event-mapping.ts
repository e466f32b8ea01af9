import { createEvent, eventFromJson, eventToJsonText, type Event } from "@agentkit/core";
import { rfc3339ToSeconds, secondsToRfc3339 } from "./rfc3339.js";

/** The managed API's event resource (Vertex AI Agent Engine `SessionEvent`, v1beta1). */
export interface SessionEventResource {
  name?: string;
  author: string;
  invocationId: string;
  timestamp: string;
  content?: unknown;
  actions?: {
    stateDelta?: Record<string, unknown>;
    artifactDelta?: Record<string, number>;
    skipSummarization?: boolean;
    transferAgent?: string;
    escalate?: boolean;
    requestedAuthConfigs?: Record<string, unknown>;
  };
  eventMetadata?: {
    partial?: boolean;
    turnComplete?: boolean;
    interrupted?: boolean;
    branch?: string;
    customMetadata?: Record<string, unknown>;
    longRunningToolIds?: string[];
    groundingMetadata?: unknown;
  };
  errorCode?: string;
  errorMessage?: string;
  /** The whole agentkit event, so fields the typed resource lacks survive the round trip. */
  rawEvent?: Record<string, unknown>;
}

function definedOnly<T extends Record<string, unknown>>(value: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** The typed fields (which the service acts on, e.g. stateDelta) plus the raw agentkit event. */
export function toSessionEvent(event: Event, stateDelta: Record<string, unknown>): SessionEventResource {
  const raw = JSON.parse(eventToJsonText(event)) as Record<string, unknown>;
  (raw.actions as Record<string, unknown>).stateDelta = stateDelta;
  const a = event.actions;
  return definedOnly({
    author: event.author,
    // Required by the API; agentkit events outside an invocation have none.
    invocationId: event.invocationId || "none",
    timestamp: secondsToRfc3339(event.timestamp),
    content: event.content,
    actions: definedOnly({
      stateDelta,
      artifactDelta: a.artifactDelta && Object.keys(a.artifactDelta).length ? a.artifactDelta : undefined,
      skipSummarization: a.skipSummarization,
      transferAgent: a.transferToAgent,
      escalate: a.escalate,
      requestedAuthConfigs:
        a.requestedAuthConfigs && Object.keys(a.requestedAuthConfigs).length ? a.requestedAuthConfigs : undefined,
    }),
    eventMetadata: definedOnly({
      partial: event.partial,
      turnComplete: event.turnComplete,
      interrupted: event.interrupted,
      branch: event.branch,
      customMetadata: event.customMetadata,
      longRunningToolIds: event.longRunningToolIds?.length ? event.longRunningToolIds : undefined,
      groundingMetadata: event.groundingMetadata,
    }),
    errorCode: event.errorCode,
    errorMessage: event.errorMessage,
    rawEvent: raw,
  }) as SessionEventResource;
}

/** An agentkit event from the resource: the raw event when present, else the typed fields. */
export function fromSessionEvent(resource: SessionEventResource): Event {
  if (resource.rawEvent && typeof resource.rawEvent === "object") return eventFromJson(resource.rawEvent);
  const m = resource.eventMetadata ?? {};
  const a = resource.actions ?? {};
  return createEvent({
    ...definedOnly({ id: resource.name?.split("/").pop() }),
    author: resource.author,
    invocationId: resource.invocationId,
    timestamp: rfc3339ToSeconds(resource.timestamp) ?? 0,
    ...(resource.content ? { content: resource.content as Event["content"] } : {}),
    actions: definedOnly({
      stateDelta: a.stateDelta ?? {},
      artifactDelta: a.artifactDelta ?? {},
      skipSummarization: a.skipSummarization,
      transferToAgent: a.transferAgent,
      escalate: a.escalate,
      requestedAuthConfigs: a.requestedAuthConfigs ?? {},
    }) as Event["actions"],
    ...definedOnly({
      partial: m.partial,
      turnComplete: m.turnComplete,
      interrupted: m.interrupted,
      branch: m.branch,
      customMetadata: m.customMetadata,
      longRunningToolIds: m.longRunningToolIds,
      groundingMetadata: m.groundingMetadata as Event["groundingMetadata"],
      errorCode: resource.errorCode,
      errorMessage: resource.errorMessage,
    }),
  });
}
