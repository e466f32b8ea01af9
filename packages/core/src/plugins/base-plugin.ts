import type { MaybePromise } from "../agents/callbacks.js";
import type { Content } from "../content/content.js";
import type { Event } from "../events/event.js";
import type { LlmResponse } from "../models/llm-response.js";
import type {
  AfterModelHookArgs,
  AfterNodeHookArgs,
  AfterRunHookArgs,
  AfterToolHookArgs,
  AgentHookArgs,
  BeforeModelHookArgs,
  BeforeNodeHookArgs,
  BeforeRunHookArgs,
  BeforeToolHookArgs,
  EventHookArgs,
  ModelErrorHookArgs,
  ToolErrorHookArgs,
  UserMessageHookArgs,
} from "./plugin-hook-args.js";

type Maybe<T> = MaybePromise<T | undefined | void>;

/**
 * A plugin hooks into every agent, model and tool call of the runner it is given to.
 * Override the hooks you need. A hook that returns a value short-circuits: later plugins'
 * same hook and the agent's own callbacks are skipped, and the value is used (see each hook).
 * Order of a run: onUserMessage, beforeRun, (beforeAgent, beforeModel, afterModel,
 * beforeTool, afterTool, afterAgent, onEvent per event)..., afterRun; close on runner close.
 * Workflow nodes add beforeNode / afterNode around each node run.
 * Each hook's argument has a named type (`AfterToolHookArgs` and the others in
 * plugin-hook-args.ts) for an override to declare.
 */
export abstract class BasePlugin {
  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  /**
   * True when `beforeModelCallback` only reads `request.contents` while it runs: it never edits
   * the array nor keeps it after it returns (it may keep the contents in it: they are frozen). It
   * may put an array of its own in its place (`request.contents = kept`, a filtered history). It
   * never edits a function declaration of `request.config.tools` either (they may be frozen and
   * shared between requests); it may replace one.
   * When every plugin with a `beforeModelCallback` says so and the agent has none of its own, the
   * flow hands the plugins the history array it shares between a session's requests instead of a
   * copy, as it does for a model that `readsContentsOnly` (a long session saves a history-sized
   * copy per model call). Default false: the request gets its own copy first.
   */
  get readsContentsOnly(): boolean {
    return false;
  }

  /** A returned content replaces the user's message. */
  onUserMessageCallback(_args: UserMessageHookArgs): Maybe<Content> {
    return undefined;
  }

  /** A returned content is emitted as the answer and the run ends without running the agent. */
  beforeRunCallback(_args: BeforeRunHookArgs): Maybe<Content> {
    return undefined;
  }

  /** A returned event replaces the event (it is the one persisted and yielded). */
  onEventCallback(_args: EventHookArgs): Maybe<Event> {
    return undefined;
  }

  /**
   * Runs once when the run ends, however it ends; `error` is what ended it when it failed
   * (an abort, a used-up budget, the LLM-call limit, an agent's error), absent otherwise.
   */
  afterRunCallback(_args: AfterRunHookArgs): MaybePromise<void> {}

  /** A returned content skips the agent and becomes its answer. */
  beforeAgentCallback(_args: AgentHookArgs): Maybe<Content> {
    return undefined;
  }

  /** A returned content is emitted after the agent's events. */
  afterAgentCallback(_args: AgentHookArgs): Maybe<Content> {
    return undefined;
  }

  /** A returned response skips the model call. */
  beforeModelCallback(_args: BeforeModelHookArgs): Maybe<LlmResponse> {
    return undefined;
  }

  /** A returned response replaces the model's. */
  afterModelCallback(_args: AfterModelHookArgs): Maybe<LlmResponse> {
    return undefined;
  }

  /** A returned response stands in for the failed model call. */
  onModelErrorCallback(_args: ModelErrorHookArgs): Maybe<LlmResponse> {
    return undefined;
  }

  /** A returned object skips the tool and becomes its response. */
  beforeToolCallback(_args: BeforeToolHookArgs): Maybe<Record<string, unknown>> {
    return undefined;
  }

  /** A returned object replaces the tool's response. */
  afterToolCallback(_args: AfterToolHookArgs): Maybe<Record<string, unknown>> {
    return undefined;
  }

  /** A returned object becomes the failed tool's response. */
  onToolErrorCallback(_args: ToolErrorHookArgs): Maybe<Record<string, unknown>> {
    return undefined;
  }

  /** Before a workflow node runs (each attempt): a returned value skips the node and becomes its output. */
  beforeNodeCallback(_args: BeforeNodeHookArgs): Maybe<unknown> {
    return undefined;
  }

  /** After a workflow node completed: a returned value replaces its output. */
  afterNodeCallback(_args: AfterNodeHookArgs): Maybe<unknown> {
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
