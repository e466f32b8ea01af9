import type { BaseAgent } from "../agents/base-agent.js";
import type { CallbackContext } from "../context/callback-context.js";
import type { MaybePromise } from "../agents/callbacks.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { Content } from "../content/content.js";
import type { Event } from "../events/event.js";
import type { LlmRequest } from "../models/llm-request.js";
import type { LlmResponse } from "../models/llm-response.js";
import type { BaseTool } from "../tools/base-tool.js";
import type { ToolContext } from "../context/tool-context.js";
import type { BaseNode } from "../workflow/base-node.js";
import type { NodeContext } from "../workflow/node-context.js";

type Maybe<T> = MaybePromise<T | undefined | void>;

/**
 * A plugin hooks into every agent, model and tool call of the runner it is given to.
 * Override the hooks you need. A hook that returns a value short-circuits: later plugins'
 * same hook and the agent's own callbacks are skipped, and the value is used (see each hook).
 * Order of a run: onUserMessage, beforeRun, (beforeAgent, beforeModel, afterModel,
 * beforeTool, afterTool, afterAgent, onEvent per event)..., afterRun; close on runner close.
 * Workflow nodes add beforeNode / afterNode around each node run.
 */
export abstract class BasePlugin {
  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  /**
   * True when `beforeModelCallback` only reads `request.contents` while it runs: it never edits
   * the array nor keeps it after it returns (it may keep the contents in it: they are frozen). It
   * may put an array of its own in its place (`request.contents = kept`, a filtered history).
   * When every plugin with a `beforeModelCallback` says so and the agent has none of its own, the
   * flow hands the plugins the history array it shares between a session's requests instead of a
   * copy, as it does for a model that `readsContentsOnly` (a long session saves a history-sized
   * copy per model call). Default false: the request gets its own copy first.
   */
  get readsContentsOnly(): boolean {
    return false;
  }

  /** A returned content replaces the user's message. */
  onUserMessageCallback(_args: { invocationContext: InvocationContext; userMessage: Content }): Maybe<Content> {
    return undefined;
  }

  /** A returned content is emitted as the answer and the run ends without running the agent. */
  beforeRunCallback(_args: { invocationContext: InvocationContext }): Maybe<Content> {
    return undefined;
  }

  /** A returned event replaces the event (it is the one persisted and yielded). */
  onEventCallback(_args: { invocationContext: InvocationContext; event: Event }): Maybe<Event> {
    return undefined;
  }

  /**
   * Runs once when the run ends, however it ends; `error` is what ended it when it failed
   * (an abort, a used-up budget, the LLM-call limit, an agent's error), absent otherwise.
   */
  afterRunCallback(_args: { invocationContext: InvocationContext; error?: unknown }): MaybePromise<void> {}

  /** A returned content skips the agent and becomes its answer. */
  beforeAgentCallback(_args: { agent: BaseAgent; context: CallbackContext }): Maybe<Content> {
    return undefined;
  }

  /** A returned content is emitted after the agent's events. */
  afterAgentCallback(_args: { agent: BaseAgent; context: CallbackContext }): Maybe<Content> {
    return undefined;
  }

  /** A returned response skips the model call. */
  beforeModelCallback(_args: { context: CallbackContext; request: LlmRequest }): Maybe<LlmResponse> {
    return undefined;
  }

  /** A returned response replaces the model's. */
  afterModelCallback(_args: { context: CallbackContext; response: LlmResponse }): Maybe<LlmResponse> {
    return undefined;
  }

  /** A returned response stands in for the failed model call. */
  onModelErrorCallback(_args: { context: CallbackContext; request: LlmRequest; error: unknown }): Maybe<LlmResponse> {
    return undefined;
  }

  /** A returned object skips the tool and becomes its response. */
  beforeToolCallback(_args: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
  }): Maybe<Record<string, unknown>> {
    return undefined;
  }

  /** A returned object replaces the tool's response. */
  afterToolCallback(_args: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    response: Record<string, unknown>;
  }): Maybe<Record<string, unknown>> {
    return undefined;
  }

  /** A returned object becomes the failed tool's response. */
  onToolErrorCallback(_args: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    error: unknown;
  }): Maybe<Record<string, unknown>> {
    return undefined;
  }

  /** Before a workflow node runs (each attempt): a returned value skips the node and becomes its output. */
  beforeNodeCallback(_args: { node: BaseNode; context: NodeContext; input: unknown }): Maybe<unknown> {
    return undefined;
  }

  /** After a workflow node completed: a returned value replaces its output. */
  afterNodeCallback(_args: { node: BaseNode; context: NodeContext; output: unknown }): Maybe<unknown> {
    return undefined;
  }

  /** Releases what the plugin holds (files, clients, timers). */
  async close(): Promise<void> {}
}

/** Names of the hooks that short-circuit on a returned value. */
export type PluginHookName =
  | "onUserMessageCallback"
  | "beforeRunCallback"
  | "onEventCallback"
  | "afterRunCallback"
  | "beforeAgentCallback"
  | "afterAgentCallback"
  | "beforeModelCallback"
  | "afterModelCallback"
  | "onModelErrorCallback"
  | "beforeToolCallback"
  | "afterToolCallback"
  | "onToolErrorCallback"
  | "beforeNodeCallback"
  | "afterNodeCallback";
