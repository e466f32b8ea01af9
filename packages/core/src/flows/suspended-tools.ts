import type { LlmAgent } from "../agents/llm-agent.js";
import type { FunctionCall, Part } from "../content/content.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { ResumedToolCall, ToolSuspension } from "../context/tool-context.js";
import { ReadonlyContext } from "../context/readonly-context.js";
import { createEvent, getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";
import type { BaseTool } from "../tools/base-tool.js";
import { isEventInBranch } from "./should-include-event.js";
import { executeFunctionCalls, type FunctionCallsOutcome } from "./function-calling.js";
import { suspendedCallOf, type SuspendedCallRecord } from "./suspended-call-record.js";
import { sessionEvents } from "../sessions/session-events.js";

/**
 * The event showing the client what a suspended call waits for: the pending calls of its
 * requests (with their confirmation, input and credential records, so the client's answer passes
 * the incoming-message check), listed in `longRunningToolIds`, authored by this agent, with the
 * suspended call and its checkpoint in `actions.agentState`. Hidden from the model.
 */
export function buildSuspendedCallEvent(
  ctx: InvocationContext,
  agent: Pick<LlmAgent, "name">,
  call: FunctionCall,
  suspension: ToolSuspension,
): Event {
  const parts: Part[] = [];
  const ids: string[] = [];
  const requestedToolConfirmations: Record<string, never> = {};
  const requestedAuthConfigs: Record<string, unknown> = {};
  const requestedInputs: Record<string, never> = {};
  for (const request of suspension.requests) {
    for (const part of request.content?.parts ?? []) {
      const id = part.functionCall?.id;
      if (!id || !request.longRunningToolIds?.includes(id)) continue;
      parts.push({ functionCall: structuredClone(part.functionCall!) });
      ids.push(id);
    }
    Object.assign(requestedToolConfirmations, structuredClone(request.actions.requestedToolConfirmations));
    Object.assign(requestedAuthConfigs, structuredClone(request.actions.requestedAuthConfigs));
    Object.assign(requestedInputs, structuredClone(request.actions.requestedInputs ?? {}));
  }
  const record: SuspendedCallRecord = {
    id: call.id!,
    name: call.name ?? "",
    args: call.args ?? {},
    checkpoint: suspension.checkpoint,
  };
  return createEvent({
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    content: { role: "model", parts },
    longRunningToolIds: ids,
    actions: {
      requestedToolConfirmations,
      requestedAuthConfigs,
      ...(Object.keys(requestedInputs).length > 0 ? { requestedInputs } : {}),
      agentState: { suspendedCall: record },
    },
  });
}

/**
 * When the newest user message of this branch answers requests of a call this agent suspended,
 * runs that call again with its checkpoint and the answers (`toolContext.resumedCall`) and
 * returns the outcome: its response under the original call id, or a new suspension. A call
 * answered since is not run again, so this is a no-op on later steps of the invocation.
 */
export async function resumeSuspendedToolCalls(
  ctx: InvocationContext,
  agent: LlmAgent,
): Promise<FunctionCallsOutcome | undefined> {
  const events = sessionEvents(ctx.session);
  const inBranch = (e: Event) => isEventInBranch(ctx.branch, e);
  let answerIndex = -1;
  let answers: Part[] = [];
  for (let k = events.length - 1; k >= 0; k--) {
    const event = events[k]!;
    if (event.author !== "user" || !inBranch(event)) continue;
    answers = (event.content?.parts ?? []).filter((p) => p.functionResponse?.id);
    answerIndex = k;
    break;
  }
  if (answers.length === 0) return undefined;
  const answered = new Set(answers.map((p) => p.functionResponse!.id!));
  for (let i = answerIndex - 1; i >= 0; i--) {
    const event = events[i]!;
    if (!inBranch(event) || !event.longRunningToolIds?.some((id) => answered.has(id))) continue;
    const record = suspendedCallOf(event);
    if (!record || event.author !== agent.name) return undefined;
    const done = events.slice(i + 1).some((e) => getFunctionResponses(e).some((r) => r.id === record.id));
    if (done) return undefined;
    const toolsDict: Record<string, BaseTool> = {};
    for (const tool of await agent.canonicalTools(new ReadonlyContext(ctx))) toolsDict[tool.name] = tool;
    const resumedCall: ResumedToolCall = {
      checkpoint: record.checkpoint,
      answers: answers.filter((p) => event.longRunningToolIds!.includes(p.functionResponse!.id!)),
    };
    return executeFunctionCalls(ctx, agent, [{ id: record.id, name: record.name, args: record.args }], toolsDict, {
      resumedCalls: { [record.id]: resumedCall },
    });
  }
  return undefined;
}

/** The client-facing requests still pending in a run's events: calls in `longRunningToolIds` nobody answered. */
export function pendingRequests(events: readonly Event[]): Event[] {
  const answered = new Set<string>();
  for (const event of events) for (const r of getFunctionResponses(event)) if (r.id) answered.add(r.id);
  return events.filter((e) =>
    getFunctionCalls(e).some((c) => c.id && e.longRunningToolIds?.includes(c.id) && !answered.has(c.id)),
  );
}
