import type { InvocationContext } from "../context/invocation-context.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import { ReadonlyContext } from "../context/readonly-context.js";
import type { FunctionCall, Part } from "../content/content.js";
import type { ToolConfirmation } from "../events/event-actions.js";
import { createEvent, getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";
import type { BaseTool } from "../tools/base-tool.js";
import { REQUEST_CONFIRMATION_FUNCTION_CALL_NAME } from "./confirmation-names.js";
import { isEventInBranch } from "./should-include-event.js";
import { executeFunctionCalls, generateFunctionCallId } from "./function-calling.js";
import { deepCopy } from "../content/deep-copy.js";
import { sessionEvents } from "../sessions/session-events.js";

/**
 * The event asking the client to confirm tool calls (http-api.md 7.2): one
 * `adk_request_confirmation` call per requested confirmation, each carrying the original call
 * and the confirmation request, its id in `longRunningToolIds` so the run pauses.
 */
export function buildConfirmationRequestEvent(
  ctx: InvocationContext,
  agent: LlmAgent,
  calls: FunctionCall[],
  responseEvent: Event,
): Event | undefined {
  const requested = responseEvent.actions.requestedToolConfirmations;
  const parts: Part[] = [];
  const ids: string[] = [];
  const confirmations: Record<string, ToolConfirmation> = {};
  for (const [callId, confirmation] of Object.entries(requested)) {
    const original = calls.find((c) => c.id === callId);
    if (!original) continue;
    const id = generateFunctionCallId();
    ids.push(id);
    confirmations[callId] = confirmation;
    parts.push({
      functionCall: {
        id,
        name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
        args: {
          originalFunctionCall: { id: original.id, name: original.name, args: original.args ?? {} },
          toolConfirmation: deepCopy(confirmation),
        },
      },
    });
  }
  if (parts.length === 0) return undefined;
  return createEvent({
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    content: { role: "user", parts },
    longRunningToolIds: ids,
    actions: { requestedToolConfirmations: confirmations },
  });
}

/**
 * Reads a client's answer: `{ confirmed, payload? }`, or the legacy
 * `{ response: "<ToolConfirmation JSON>" }`. Anything malformed counts as a rejection.
 */
export function parseToolConfirmation(response: Record<string, unknown> | undefined): ToolConfirmation {
  let value: unknown = response;
  if (response && Object.keys(response).length === 1 && typeof response.response === "string") {
    try {
      value = JSON.parse(response.response);
    } catch {
      return { confirmed: false };
    }
  }
  if (
    typeof value !== "object" ||
    value === null ||
    typeof (value as { confirmed?: unknown }).confirmed !== "boolean"
  ) {
    return { confirmed: false };
  }
  const v = value as { confirmed: boolean; hint?: unknown; payload?: unknown };
  const confirmation: ToolConfirmation = { confirmed: v.confirmed };
  if (typeof v.hint === "string") confirmation.hint = v.hint;
  if (v.payload !== undefined) confirmation.payload = v.payload;
  return confirmation;
}

/**
 * When the newest user message of this branch answers `adk_request_confirmation` calls,
 * re-runs the original tool calls with `toolContext.toolConfirmation` set and returns their
 * response event (under the original call ids). Calls answered since are not re-run, so this
 * is a no-op on later steps of the invocation.
 *
 * Only what this agent's own flow wrote is trusted: the request event must be authored by this
 * agent and carry the confirmation record (`actions.requestedToolConfirmations`) for the original
 * call, and the call that runs is the one the model made (found in this agent's own earlier
 * event), never the copy inside the request's arguments. The runner has already refused answers
 * to requests that are unknown, answered or not pending (`checkIncomingMessage`).
 */
export async function resumeConfirmedToolCalls(ctx: InvocationContext, agent: LlmAgent): Promise<Event | undefined> {
  // Walk back from the end: the newest user event decides, so this step costs O(1) per
  // invocation instead of a pass over the whole history.
  const events = sessionEvents(ctx.session);
  const inBranch = (e: Event) => isEventInBranch(ctx.branch, e);
  let answers: Record<string, ToolConfirmation> | undefined;
  let answerIndex = -1;
  for (let k = events.length - 1; k >= 0; k--) {
    const event = events[k]!;
    if (event.author !== "user" || !inBranch(event)) continue;
    const responses = getFunctionResponses(event).filter(
      (r) => r.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME && r.id,
    );
    if (responses.length === 0) return undefined;
    answers = Object.fromEntries(responses.map((r) => [r.id!, parseToolConfirmation(r.response)]));
    answerIndex = k;
    break;
  }
  if (!answers) return undefined;

  for (let i = answerIndex - 1; i >= 0; i--) {
    const requestEvent = events[i]!;
    if (!inBranch(requestEvent)) continue;
    const requestCalls = getFunctionCalls(requestEvent).filter((c) => c.id && Object.hasOwn(answers!, c.id));
    if (requestCalls.length === 0) continue;
    if (requestEvent.author !== agent.name) return undefined; // not this agent's request
    const recorded = requestEvent.actions.requestedToolConfirmations;
    const confirmations: Record<string, ToolConfirmation> = {};
    const originals: FunctionCall[] = [];
    for (const call of requestCalls) {
      const originalId = (call.args?.originalFunctionCall as { id?: unknown } | undefined)?.id;
      if (typeof originalId !== "string" || !Object.hasOwn(recorded, originalId)) continue;
      const original = findModelCall(events, i, agent.name, originalId);
      if (!original) continue;
      confirmations[originalId] = answers[call.id!]!;
      originals.push({ id: originalId, name: original.name, args: original.args ?? {} });
    }
    const answered = new Set(
      events
        .slice(answerIndex + 1)
        .filter(inBranch)
        .flatMap((e) => getFunctionResponses(e).map((r) => r.id)),
    );
    const pending = originals.filter((c) => !answered.has(c.id));
    if (pending.length === 0) return undefined;
    const toolsDict: Record<string, BaseTool> = {};
    for (const tool of await agent.canonicalTools(new ReadonlyContext(ctx))) toolsDict[tool.name] = tool;
    const outcome = await executeFunctionCalls(ctx, agent, pending, toolsDict, { confirmations });
    return outcome.event;
  }
  return undefined;
}

/** The function call `id` as the model made it: in an event of this agent before `before`. */
export function findModelCall(
  events: readonly Event[],
  before: number,
  agentName: string,
  id: string,
): FunctionCall | undefined {
  for (let i = before - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.author !== agentName) continue;
    const call = getFunctionCalls(event).find((c) => c.id === id);
    if (call) return call;
  }
  return undefined;
}
