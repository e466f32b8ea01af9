import type { LlmAgent } from "../agents/llm-agent.js";
import { completeAuthorization, credentialDependenciesOf } from "../auth/credential-request.js";
import type { AuthConfig } from "../auth/auth-config.js";
import { CallbackContext } from "../context/callback-context.js";
import type { InvocationContext } from "../context/invocation-context.js";
import { ReadonlyContext } from "../context/readonly-context.js";
import type { FunctionCall, Part } from "../content/content.js";
import { CredentialError } from "../errors/auth-errors.js";
import { createEventActions, mergeEventActions } from "../events/event-actions.js";
import { createEvent, getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";
import type { BaseTool } from "../tools/base-tool.js";
import { findModelCall } from "./confirmation.js";
import { REQUEST_CREDENTIAL_FUNCTION_CALL_NAME } from "./confirmation-names.js";
import { isEventInBranch } from "./should-include-event.js";
import { executeFunctionCalls } from "./function-calling.js";
import { sessionEvents } from "../sessions/session-events.js";

/**
 * When the newest user message of this branch answers `adk_request_credential` calls, completes
 * each authorization (OAuth2: state checked, code exchanged with PKCE, tokens stored) and re-runs
 * the original tool calls, whose `getCredential` now finds the credential. Returns their response
 * event under the original call ids; an authorization that failed answers its call with
 * `{ error }` instead of re-running it. Calls answered since are not re-run, so this is a no-op on
 * later steps of the invocation.
 *
 * Only what this agent's own flow wrote is trusted: the request event must be authored by this
 * agent and carry the flow's record (`actions.requestedAuthConfigs`) for the original call; the
 * scheme and key come from that record, never from the client's answer, and the call that runs is
 * the one the model made (found in this agent's own earlier event). The runner has already refused
 * answers to requests that are unknown, answered or not pending (`checkIncomingMessage`).
 */
export async function resumeAuthorizedToolCalls(ctx: InvocationContext, agent: LlmAgent): Promise<Event | undefined> {
  const events = sessionEvents(ctx.session);
  const inBranch = (e: Event) => isEventInBranch(ctx.branch, e);
  let answers: Map<string, Record<string, unknown> | undefined> | undefined;
  let answerIndex = -1;
  for (let k = events.length - 1; k >= 0; k--) {
    const event = events[k]!;
    if (event.author !== "user" || !inBranch(event)) continue;
    const responses = getFunctionResponses(event).filter(
      (r) => r.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME && r.id,
    );
    if (responses.length === 0) return undefined;
    answers = new Map(responses.map((r) => [r.id!, r.response]));
    answerIndex = k;
    break;
  }
  if (!answers) return undefined;

  for (let i = answerIndex - 1; i >= 0; i--) {
    const requestEvent = events[i]!;
    if (!inBranch(requestEvent)) continue;
    const requestCalls = getFunctionCalls(requestEvent).filter((c) => c.id && answers!.has(c.id));
    if (requestCalls.length === 0) continue;
    if (requestEvent.author !== agent.name) return undefined; // not this agent's request
    const answered = new Set(
      events
        .slice(answerIndex + 1)
        .filter(inBranch)
        .flatMap((e) => getFunctionResponses(e).map((r) => r.id)),
    );
    const recorded = requestEvent.actions.requestedAuthConfigs;
    const deps = credentialDependenciesOf(ctx);
    const actions = createEventActions();
    const context = new CallbackContext(ctx, actions);
    const rerun: FunctionCall[] = [];
    const failures: Part[] = [];
    for (const call of requestCalls) {
      const originalId = call.args?.functionCallId;
      if (typeof originalId !== "string" || !Object.hasOwn(recorded, originalId) || answered.has(originalId)) continue;
      const original = findModelCall(events, i, agent.name, originalId);
      if (!original) continue;
      try {
        await completeAuthorization(recorded[originalId] as AuthConfig, call.id!, answers.get(call.id!), context, deps);
        rerun.push({ id: originalId, name: original.name, args: original.args ?? {} });
      } catch (error) {
        if (!(error instanceof CredentialError)) throw error;
        failures.push({
          functionResponse: {
            id: originalId,
            name: original.name ?? "",
            response: { error: `Authorization failed (${error.code}): ${error.message}` },
          },
        });
      }
    }
    if (rerun.length === 0 && failures.length === 0) return undefined;
    const toolsDict: Record<string, BaseTool> = {};
    if (rerun.length > 0) {
      for (const tool of await agent.canonicalTools(new ReadonlyContext(ctx))) toolsDict[tool.name] = tool;
    }
    const outcome = rerun.length > 0 ? await executeFunctionCalls(ctx, agent, rerun, toolsDict) : {};
    const parts = [...failures, ...(outcome.event?.content?.parts ?? [])];
    return createEvent({
      invocationId: ctx.invocationId,
      author: agent.name,
      branch: ctx.branch,
      content: parts.length > 0 ? { role: "user", parts } : undefined,
      actions: mergeEventActions(actions, outcome.event?.actions),
    });
  }
  return undefined;
}
