import type { BaseAgent } from "../agents/base-agent.js";
import type { Content } from "../content/content.js";
import type { CallbackContext } from "../context/callback-context.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { ToolContext } from "../context/tool-context.js";
import type { Event } from "../events/event.js";
import type { LlmRequest } from "../models/llm-request.js";
import type { LlmResponse } from "../models/llm-response.js";
import type { BaseTool } from "../tools/base-tool.js";
import type { BaseNode } from "../workflow/base-node.js";
import type { NodeContext } from "../workflow/node-context.js";

// What each BasePlugin hook is called with, by name: TypeScript does not type an overriding
// method's parameter from the base class, so a plugin writes `override afterToolCallback({ tool,
// response }: AfterToolHookArgs)`. The model and tool shapes are also the agent callbacks'
// (`BeforeModelCallback` and the others in agents/callbacks.ts).

/** `onUserMessageCallback`: the run's context and the user's message. */
export interface UserMessageHookArgs {
  invocationContext: InvocationContext;
  userMessage: Content;
}

/** `beforeRunCallback`. */
export interface BeforeRunHookArgs {
  invocationContext: InvocationContext;
}

/** `onEventCallback`: each event before it is stored and yielded. */
export interface EventHookArgs {
  invocationContext: InvocationContext;
  event: Event;
}

/** `afterRunCallback`: `error` is what ended the run when it failed. */
export interface AfterRunHookArgs {
  invocationContext: InvocationContext;
  error?: unknown;
}

/** `beforeAgentCallback` and `afterAgentCallback`. */
export interface AgentHookArgs {
  agent: BaseAgent;
  context: CallbackContext;
}

/** `beforeModelCallback` (and an agent's `BeforeModelCallback`). */
export interface BeforeModelHookArgs {
  context: CallbackContext;
  request: LlmRequest;
}

/** `afterModelCallback` (and an agent's `AfterModelCallback`). */
export interface AfterModelHookArgs {
  context: CallbackContext;
  response: LlmResponse;
}

/** `onModelErrorCallback` (and an agent's `OnModelErrorCallback`). */
export interface ModelErrorHookArgs {
  context: CallbackContext;
  request: LlmRequest;
  error: unknown;
}

/** `beforeToolCallback` (and an agent's `BeforeToolCallback`): the tool and the arguments the model gave. */
export interface BeforeToolHookArgs {
  tool: BaseTool;
  args: Record<string, unknown>;
  context: ToolContext;
}

/** `afterToolCallback` (and an agent's `AfterToolCallback`). */
export interface AfterToolHookArgs extends BeforeToolHookArgs {
  response: Record<string, unknown>;
}

/** `onToolErrorCallback` (and an agent's `OnToolErrorCallback`). */
export interface ToolErrorHookArgs extends BeforeToolHookArgs {
  error: unknown;
}

/** `beforeNodeCallback`: a workflow node's attempt and its input. */
export interface BeforeNodeHookArgs {
  node: BaseNode;
  context: NodeContext;
  input: unknown;
}

/** `afterNodeCallback`: a workflow node that completed, and its output. */
export interface AfterNodeHookArgs {
  node: BaseNode;
  context: NodeContext;
  output: unknown;
}
