import type { LlmAgent } from "../agents/llm-agent.js";
import type { AuthConfig } from "../auth/auth-config.js";
import {
  buildCredentialRequestEvent,
  completeAuthorization,
  credentialDependenciesOf,
} from "../auth/credential-request.js";
import { CallbackContext } from "../context/callback-context.js";
import type { FunctionCall } from "../content/content.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { CredentialError } from "../errors/auth-errors.js";
import { createEventActions, mergeEventActions } from "../events/event-actions.js";
import { getFunctionCalls, getFunctionResponses, type Event } from "../events/event.js";
import { buildConfirmationRequestEvent, parseToolConfirmation } from "../flows/confirmation.js";
import {
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
} from "../flows/confirmation-names.js";
import { UNANSWERED_CALL_RESPONSE } from "../flows/answer-dangling-calls.js";
import { executeFunctionCalls, generateFunctionCallId } from "../flows/function-calling.js";
import type { BaseTool } from "../tools/base-tool.js";
import { BaseNode, type BaseNodeOptions, type NodeYield } from "./base-node.js";
import type { NodeContext } from "./node-context.js";
import { NodeInterruptedError } from "./workflow-errors.js";
import { sessionEvents } from "../sessions/session-events.js";

export interface ToolNodeOptions extends Omit<BaseNodeOptions, "name" | "rerunOnResume"> {
  /** Node name; default the tool's name (with `-` replaced by `_`). */
  name?: string;
}

/**
 * Runs a tool as a node: the input (an object, a JSON string, or a text as `{ request }`) is
 * the call's arguments and the tool's result is the output. The call goes through the same path
 * as a model's call (plugin tool callbacks, confirmation, credential requests, long-running
 * pauses) and is written as
 * a function call and response of the node, so a resumed or restarted run never runs a call that
 * already returned: it takes the stored result, and a call cut off by a crash fails the node with
 * `NodeInterruptedError` instead of running again.
 */
export class ToolNode extends BaseNode {
  readonly tool: BaseTool;

  constructor(tool: BaseTool, options: ToolNodeOptions = {}) {
    if (!tool || typeof (tool as BaseTool).runAsync !== "function")
      throw new ConfigurationError("ToolNode needs a tool: new ToolNode(tool).");
    super({ ...options, name: options.name ?? tool.name.replace(/-/g, "_") });
    this.tool = tool;
  }

  protected override defaultRerunOnResume(): boolean {
    return true;
  }

  override async *runNode(ctx: NodeContext, input: unknown): AsyncGenerator<NodeYield, unknown, void> {
    const prior = ctx.priorEvents();
    const previous = prior.flatMap(getFunctionCalls).find((c) => c.name === this.tool.name);
    let call: FunctionCall;
    let confirmation: ReturnType<typeof parseToolConfirmation> | undefined;
    let authorizationActions: ReturnType<typeof createEventActions> | undefined;
    if (previous?.id) {
      call = previous;
      const answered = findResponse(sessionEvents(ctx.session), call.id!);
      if (answered) {
        if (isInterrupted(answered))
          throw new NodeInterruptedError(
            this.name,
            `its call of tool "${this.tool.name}" did not return before the run stopped.`,
          );
        return unwrap(answered);
      }
      const request = prior
        .flatMap(getFunctionCalls)
        .find((c) => c.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME && c.id && c.id in ctx.resumeInputs);
      const authorized = authorizedRequest(prior, ctx.resumeInputs);
      if (request?.id) confirmation = parseToolConfirmation(ctx.resumeInputs[request.id] as Record<string, unknown>);
      else if (authorized) {
        const actions = createEventActions();
        try {
          const deps = credentialDependenciesOf(ctx.invocation);
          const context = new CallbackContext(ctx.invocation, actions);
          await completeAuthorization(authorized.record, authorized.id, authorized.answer, context, deps);
        } catch (error) {
          if (!(error instanceof CredentialError)) throw error;
          // As in an agent's flow: a failed authorization answers the call with an error.
          const response = { error: `Authorization failed (${error.code}): ${error.message}` };
          yield ctx.createNodeEvent({
            content: { role: "user", parts: [{ functionResponse: { id: call.id, name: call.name, response } }] },
            actions,
          });
          return response;
        }
        authorizationActions = actions;
      } else if (this.tool.isLongRunning && call.id! in ctx.resumeInputs) return ctx.resumeInputs[call.id!];
      else if (this.tool.isLongRunning)
        throw new NodeInterruptedError(this.name, `long-running tool "${this.tool.name}" has no answer yet.`);
    } else {
      call = { id: generateFunctionCallId(), name: this.tool.name, args: toArgs(input) };
      yield ctx.createNodeEvent({
        content: { role: "model", parts: [{ functionCall: call }] },
        longRunningToolIds: this.tool.isLongRunning ? [call.id!] : undefined,
      });
    }
    // The canonical call path wants an agent: the node stands in (it has no tool callbacks of its own).
    const caller = { name: this.name } as LlmAgent;
    const outcome = await executeFunctionCalls(
      ctx.invocation,
      caller,
      [call],
      { [this.tool.name]: this.tool },
      {
        confirmations: confirmation ? { [call.id!]: confirmation } : undefined,
      },
    );
    const responseEvent = outcome.event;
    if (!responseEvent) return undefined; // a long-running tool that answers later: the call stays pending
    responseEvent.nodeInfo = { path: ctx.nodePath };
    if (authorizationActions) responseEvent.actions = mergeEventActions(authorizationActions, responseEvent.actions);
    // Built before the response is stored: a credential the user cannot be asked for answers the call with an error.
    const credentialRequest = await buildCredentialRequestEvent(
      ctx.invocation,
      this.name,
      [call],
      responseEvent,
      generateFunctionCallId,
    );
    yield responseEvent;
    const request = credentialRequest ?? buildConfirmationRequestEvent(ctx.invocation, caller, [call], responseEvent);
    if (request) {
      request.nodeInfo = { path: ctx.nodePath };
      yield request;
      return undefined;
    }
    const response = getFunctionResponses(responseEvent).find((r) => r.id === call.id);
    return response ? unwrap(response.response ?? {}) : undefined;
  }
}

function toArgs(input: unknown): Record<string, unknown> {
  if (input === undefined || input === null) return {};
  if (typeof input === "object" && !Array.isArray(input)) {
    const parts = (input as { parts?: { text?: string }[] }).parts;
    if (Array.isArray(parts)) return toArgs(parts.map((p) => p.text ?? "").join(""));
    return input as Record<string, unknown>;
  }
  if (typeof input === "string") {
    try {
      const parsed: unknown = JSON.parse(input);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      // plain text
    }
    return { request: input };
  }
  return { value: input };
}

/** The call's result, if it returned (a response that only asked for confirmation or a credential does not count). */
function findResponse(events: readonly Event[], id: string): Record<string, unknown> | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (Object.hasOwn(event.actions.requestedToolConfirmations, id)) continue;
    if (Object.hasOwn(event.actions.requestedAuthConfigs, id)) continue;
    const found = getFunctionResponses(event).find((r) => r.id === id);
    if (found) return found.response ?? {};
  }
  return undefined;
}

/**
 * The node's answered credential request, with the record the flow stored with it (the scheme and
 * key come from that record, never from the client's answer).
 */
function authorizedRequest(
  prior: readonly Event[],
  answers: Readonly<Record<string, unknown>>,
): { id: string; record: AuthConfig; answer: Record<string, unknown> | undefined } | undefined {
  for (const event of prior) {
    for (const c of getFunctionCalls(event)) {
      if (c.name !== REQUEST_CREDENTIAL_FUNCTION_CALL_NAME || !c.id || !(c.id in answers)) continue;
      const originalId = c.args?.functionCallId;
      if (typeof originalId !== "string" || !Object.hasOwn(event.actions.requestedAuthConfigs, originalId)) continue;
      const answer = answers[c.id];
      return {
        id: c.id,
        record: event.actions.requestedAuthConfigs[originalId] as AuthConfig,
        answer: typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>) : undefined,
      };
    }
  }
  return undefined;
}

function isInterrupted(response: Record<string, unknown>): boolean {
  return response.error === UNANSWERED_CALL_RESPONSE.error;
}

/** `{ result: x }` (how non-object results are wrapped) becomes `x`. */
export function unwrap(response: Record<string, unknown>): unknown {
  const keys = Object.keys(response);
  return keys.length === 1 && keys[0] === "result" ? response.result : response;
}
