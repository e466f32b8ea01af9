import {
  getFunctionCalls,
  getFunctionResponses,
  isFinalResponse,
  readInvocationUsage,
  type Content,
  type Event,
  type Part,
} from "@agentkit/core";
import type { IntermediateData, Invocation } from "./eval-types.js";

function isUserTurn(event: Event): boolean {
  if (event.author !== "user" || !event.content?.parts?.length) return false;
  // A user event carrying only function responses answers a tool; it does not start a turn.
  return event.content.parts.some((p) => !p.functionResponse);
}

function textParts(content: Content | undefined): Part[] {
  return (content?.parts ?? []).filter((p) => typeof p.text === "string" && !p.thought).map((p) => ({ text: p.text }));
}

/**
 * The agent's side of one turn, from the events it produced: tool calls and responses in
 * order, in-between text answers, and the last final text response.
 */
export function invocationFromEvents(
  userContent: Content,
  events: readonly Event[],
  invocationId?: string,
): Invocation {
  const invocation: Invocation = {
    invocationId: invocationId ?? events.find((e) => e.invocationId)?.invocationId ?? "",
    userContent,
    intermediateData: { toolUses: [], toolResponses: [], intermediateResponses: [] },
    creationTimestamp: events[0]?.timestamp ?? Date.now() / 1000,
  };
  const data = invocation.intermediateData as IntermediateData;
  let finalAuthor = "";
  for (const event of events) {
    if (event.partial) continue;
    const usage = readInvocationUsage(event);
    if (usage) invocation.usage = usage;
    data.toolUses.push(...getFunctionCalls(event).map((c) => structuredClone(c)));
    data.toolResponses.push(...getFunctionResponses(event).map((r) => structuredClone(r)));
    if (event.author === "user") continue;
    const texts = textParts(event.content);
    if (texts.length === 0) continue;
    if (isFinalResponse(event)) {
      // Several agents may answer in one turn (a workflow): the last answer is the final one.
      if (invocation.finalResponse)
        data.intermediateResponses.push([finalAuthor, invocation.finalResponse.parts ?? []]);
      invocation.finalResponse = { role: "model", parts: texts };
      finalAuthor = event.author;
    } else {
      data.intermediateResponses.push([event.author, texts]);
    }
  }
  return invocation;
}

/** A session's history as invocations: each user message starts one (ADK's conversation). */
export function invocationsFromSession(events: readonly Event[]): Invocation[] {
  const out: Invocation[] = [];
  let current: { user: Event; events: Event[] } | undefined;
  const flush = () => {
    if (!current) return;
    const invocation = invocationFromEvents(
      structuredClone(current.user.content!),
      current.events,
      current.user.invocationId,
    );
    invocation.creationTimestamp = current.user.timestamp;
    out.push(invocation);
  };
  for (const event of events) {
    if (isUserTurn(event)) {
      flush();
      current = { user: event, events: [] };
    } else if (current) {
      current.events.push(event);
    }
  }
  flush();
  return out;
}
