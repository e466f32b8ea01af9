import { getTextOf, type Content, type FunctionCall, type FunctionResponse, type Part } from "@agentkit/core";
import type { IntermediateData, Invocation, InvocationEvents } from "./eval-types.js";

function isEventsForm(data: Invocation["intermediateData"]): data is InvocationEvents {
  return typeof data === "object" && data !== null && "invocationEvents" in data;
}

function partsOf(invocation: Invocation): Part[] {
  const data = invocation.intermediateData;
  return isEventsForm(data) ? data.invocationEvents.flatMap((e) => e.content?.parts ?? []) : [];
}

/** The turn's tool calls in order, from either of ADK's intermediate data shapes. */
export function toolUsesOf(invocation: Invocation): FunctionCall[] {
  const data = invocation.intermediateData;
  if (!data) return [];
  if (isEventsForm(data)) return partsOf(invocation).flatMap((p) => (p.functionCall ? [p.functionCall] : []));
  return (data as IntermediateData).toolUses ?? [];
}

/** The turn's tool responses in order, from either of ADK's intermediate data shapes. */
export function toolResponsesOf(invocation: Invocation): FunctionResponse[] {
  const data = invocation.intermediateData;
  if (!data) return [];
  if (isEventsForm(data)) return partsOf(invocation).flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
  return (data as IntermediateData).toolResponses ?? [];
}

/** Text answers given before the final one (sub-agents, progress notes). */
export function intermediateTextsOf(invocation: Invocation): string[] {
  const data = invocation.intermediateData;
  if (!data) return [];
  if (isEventsForm(data))
    return data.invocationEvents
      .filter((e) => e.author !== "user" && e.content)
      .map((e) => getTextOf(e.content!))
      .filter((t) => t !== "")
      .slice(0, -1);
  return ((data as IntermediateData).intermediateResponses ?? [])
    .map(([, parts]) => getTextOf({ role: "model", parts }))
    .filter((t) => t !== "");
}

/** The plain text of a content (empty when absent). */
export function textOf(content: Content | undefined): string {
  return content ? getTextOf(content) : "";
}
