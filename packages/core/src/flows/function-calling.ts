import { callbackList, runCallbackSlot } from "../agents/callbacks.js";
import { mapWithLimit } from "../concurrency/map-with-limit.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import { ToolExecutionMode } from "../agents/run-config.js";
import type { FunctionCall, Part } from "../content/content.js";
import { AgentKitError, ConfigurationError } from "../errors/agentkit-error.js";
import { LlmCallsLimitExceededError, RunAbortedError } from "../errors/run-errors.js";
import { mergeEventActions, type EventActions, type ToolConfirmation } from "../events/event-actions.js";
import { createEvent, getFunctionCalls, type Event, type EventInit } from "../events/event.js";
import { randomUuid } from "../events/random-uuid.js";
import { getOwn, hasOwnKeys } from "../sessions/own-keys.js";
import { BaseTool } from "../tools/base-tool.js";
import { ToolContext, type ResumedToolCall, type ToolSuspension } from "../context/tool-context.js";
import { CLIENT_FUNCTION_CALL_ID_PREFIX } from "./confirmation-names.js";
import { SET_MODEL_RESPONSE_TOOL_NAME, SetModelResponseTool } from "./output-schema.js";

/** A new framework-generated function-call id (`adk-<uuid>`). */
export function generateFunctionCallId(): string {
  return randomUuid(CLIENT_FUNCTION_CALL_ID_PREFIX);
}

/** Gives every function call of the content an id (in place); returns the calls. */
export function populateFunctionCallIds(event: Event): FunctionCall[] {
  const calls = getFunctionCalls(event);
  for (const call of calls) if (!call.id) call.id = generateFunctionCallId();
  return calls;
}

/** Ids of the calls whose tool is long-running (no closure or pair arrays per call: this runs for every model event). */
export function getLongRunningCallIds(calls: FunctionCall[], toolsDict: Record<string, BaseTool>): string[] {
  let ids: string[] | undefined;
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i]!;
    if (c.name && c.id && getOwn<BaseTool>(toolsDict, c.name)?.isLongRunning) (ids ??= []).push(c.id);
  }
  return ids ?? [];
}

/** The model called a tool the agent does not have. */
export class ToolNotFoundError extends AgentKitError {
  constructor(name: string, available: string[]) {
    super(
      "TOOL_NOT_FOUND",
      `Tool '${name}' not found. Available tools: ${available.length ? available.join(", ") : "(none)"}.`,
    );
  }
}

/** Stands in for a hallucinated tool in the error callbacks and the response. */
class MissingTool extends BaseTool {
  constructor(name: string) {
    super({ name, description: "Tool not found" });
  }
}

export interface HandleFunctionCallsOptions {
  /** Only run calls with these ids. */
  filter?: Set<string>;
  /** Confirmation answers by call id (re-runs after `adk_request_confirmation`). */
  confirmations?: Record<string, ToolConfirmation>;
  /** Suspended calls running again, by call id (see `ToolContext.suspend`). */
  resumedCalls?: Record<string, ResumedToolCall>;
}

export interface FunctionCallsOutcome {
  /** The merged function-response event, or `undefined` when no call answered and nothing changed. */
  event?: Event;
  /** Arguments of a successful `set_model_response` call: the agent's structured answer. */
  structuredOutput?: Record<string, unknown>;
  /** Calls that suspended (no response yet): what each waits for. */
  suspensions?: { call: FunctionCall; suspension: ToolSuspension }[];
}

interface CallResult {
  part?: Part;
  actions: EventActions;
  structured?: Record<string, unknown>;
  suspension?: ToolSuspension;
}

/**
 * Runs the function calls of a model event (in parallel, at most `runConfig.maxConcurrentToolCalls`
 * at once, unless `runConfig.toolExecutionMode` is sequential) and merges their responses, in call order, into one event authored by the
 * agent (role `user`), with the actions of every call merged.
 */
export async function handleFunctionCalls(
  ctx: InvocationContext,
  agent: LlmAgent,
  functionCallEvent: Event,
  toolsDict: Record<string, BaseTool>,
  options: HandleFunctionCallsOptions = {},
): Promise<Event | undefined> {
  return (await executeFunctionCalls(ctx, agent, getFunctionCalls(functionCallEvent), toolsDict, options)).event;
}

/** `handleFunctionCalls` with the details the text flow needs. */
export async function executeFunctionCalls(
  ctx: InvocationContext,
  agent: LlmAgent,
  calls: FunctionCall[],
  toolsDict: Record<string, BaseTool>,
  options: HandleFunctionCallsOptions = {},
): Promise<FunctionCallsOutcome> {
  const filter = options.filter;
  const selected = filter ? calls.filter((c) => c.id !== undefined && filter.has(c.id)) : calls;
  if (selected.length === 0) return {};
  let results: CallResult[];
  // One call (most steps) runs as the sequential mode runs it: no pool of workers to await.
  if (selected.length === 1 || ctx.runConfig.toolExecutionMode === ToolExecutionMode.SEQUENTIAL) {
    results = [];
    for (const call of selected) {
      ctx.throwIfAborted();
      results.push(await runSelectedCall(ctx, agent, call, toolsDict, options));
    }
  } else {
    results = await mapWithLimit(selected, ctx.runConfig.maxConcurrentToolCalls ?? selected.length, (call) =>
      runSelectedCall(ctx, agent, call, toolsDict, options),
    );
  }
  ctx.throwIfAborted();
  // One pass over the results, in call order (a step's one call used to make four arrays).
  const parts: Part[] = [];
  const callActions: EventActions[] = [];
  let structuredOutput: Record<string, unknown> | undefined;
  let suspensions: { call: FunctionCall; suspension: ToolSuspension }[] | undefined;
  for (let i = 0; i < results.length; i++) {
    const result = results[i]!;
    if (result.part) parts.push(result.part);
    callActions.push(result.actions);
    structuredOutput ??= result.structured;
    if (result.suspension) (suspensions ??= []).push({ call: selected[i]!, suspension: result.suspension });
  }
  const actions = mergeEventActions(...callActions);
  if (parts.length === 0 && !hasEffects(actions)) return suspensions ? { suspensions } : {};
  // No undefined members (createEvent then copies the init with one spread); the keys keep the
  // order of the full init: invocationId, author, branch, content, actions, then id and timestamp.
  const init: EventInit = { invocationId: ctx.invocationId, author: agent.name };
  if (ctx.branch !== undefined) init.branch = ctx.branch;
  if (parts.length > 0) init.content = { role: "user", parts };
  init.actions = actions;
  const event = createEvent(init);
  return suspensions ? { event, structuredOutput, suspensions } : { event, structuredOutput };
}

/**
 * One selected call with its confirmation and resumed state. A function, not a closure per
 * `executeFunctionCalls`: runtimes that keep function names (tsx) define a name on every
 * named closure made.
 */
function runSelectedCall(
  ctx: InvocationContext,
  agent: LlmAgent,
  call: FunctionCall,
  toolsDict: Record<string, BaseTool>,
  options: HandleFunctionCallsOptions,
): Promise<CallResult> {
  return runOneCall(
    ctx,
    agent,
    call,
    toolsDict,
    call.id ? options.confirmations?.[call.id] : undefined,
    call.id ? options.resumedCalls?.[call.id] : undefined,
  );
}

/** True when the actions change anything (a non-empty map, a flag, a compaction...). */
export function hasEffects(actions: EventActions): boolean {
  // `for…in` + own check: the own keys without the arrays `Object.entries` makes.
  for (const key in actions) {
    if (!Object.hasOwn(actions, key)) continue;
    const v = (actions as unknown as Record<string, unknown>)[key];
    if (v === undefined || v === false) continue;
    if (typeof v === "object" && v !== null && !Array.isArray(v) && !hasOwnKeys(v)) continue;
    return true;
  }
  return false;
}

async function runOneCall(
  ctx: InvocationContext,
  agent: LlmAgent,
  call: FunctionCall,
  toolsDict: Record<string, BaseTool>,
  toolConfirmation: ToolConfirmation | undefined,
  resumedCall?: ResumedToolCall,
): Promise<CallResult> {
  const toolContext = new ToolContext(ctx, { functionCallId: call.id, toolConfirmation, resumedCall });
  const args = call.args ?? {};
  const name = call.name ?? "";
  const tool = Object.hasOwn(toolsDict, name) ? toolsDict[name] : undefined;
  const plugins = ctx.pluginManager;

  if (!tool) {
    const missing = new MissingTool(name);
    const error = new ToolNotFoundError(name, Object.keys(toolsDict));
    const response = (await toolErrorResponse(ctx, agent, missing, args, toolContext, error)) ?? {
      error: error.message,
    };
    return { part: responsePart(call, name, response), actions: toolContext.actions };
  }

  // Hooks are awaited only when some plugin or the agent has one: no arguments made and no turns
  // of the microtask queue per call otherwise.
  let response: unknown;
  if (plugins.hasHook("beforeToolCallback") || callbackList(agent.beforeToolCallback).length > 0) {
    response = await plugins.run("beforeToolCallback", { tool, args, context: toolContext });
    if (response === undefined)
      response = await runCallbackSlot(agent.beforeToolCallback, { tool, args, context: toolContext });
  }
  let failed = false;
  if (response === undefined) {
    try {
      response = await tool.runAsync({ args, toolContext });
    } catch (error) {
      if (mustPropagate(ctx, error)) throw error;
      failed = true;
      response = (await toolErrorResponse(ctx, agent, tool, args, toolContext, error)) ?? {
        error: errorMessage(error),
      };
    }
  }
  // A suspended call has not answered yet: the flow shows the client what it waits for.
  if (toolContext.suspension) return { actions: toolContext.actions, suspension: toolContext.suspension };
  // A long-running tool that returns nothing has not answered yet: the run pauses for the client.
  if (tool.isLongRunning && (response === undefined || response === null)) return { actions: toolContext.actions };

  let record = toRecord(response);
  if (plugins.hasHook("afterToolCallback") || callbackList(agent.afterToolCallback).length > 0) {
    const altered =
      (await plugins.run("afterToolCallback", { tool, args, context: toolContext, response: record })) ??
      (await runCallbackSlot(agent.afterToolCallback, { tool, args, context: toolContext, response: record }));
    if (altered !== undefined) record = toRecord(altered);
  }

  const structured =
    !failed && name === SET_MODEL_RESPONSE_TOOL_NAME && tool instanceof SetModelResponseTool ? record : undefined;
  return { part: responsePart(call, name, record), actions: toolContext.actions, structured };
}

async function toolErrorResponse(
  ctx: InvocationContext,
  agent: LlmAgent,
  tool: BaseTool,
  args: Record<string, unknown>,
  context: ToolContext,
  error: unknown,
): Promise<Record<string, unknown> | undefined> {
  const fromPlugin = await ctx.pluginManager.run("onToolErrorCallback", { tool, args, context, error });
  if (fromPlugin !== undefined) return fromPlugin;
  return runCallbackSlot(agent.onToolErrorCallback, { tool, args, context, error });
}

/** Failures that end the run instead of being reported to the model. */
export function mustPropagate(ctx: InvocationContext, error: unknown): boolean {
  if (ctx.signal?.aborted) return true;
  if (
    error instanceof LlmCallsLimitExceededError ||
    error instanceof RunAbortedError ||
    error instanceof ConfigurationError
  )
    return true;
  return error instanceof Error && error.name === "AbortError";
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Function responses must be objects: other values are wrapped as `{ result }`; undefined is `{}`. */
function toRecord(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  return { result: value };
}

function responsePart(call: FunctionCall, name: string, response: Record<string, unknown>): Part {
  return { functionResponse: { ...(call.id ? { id: call.id } : {}), name, response } };
}
