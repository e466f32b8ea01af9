import type { Content } from "../content/content.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { createEvent, type Event } from "../events/event.js";
import { CallbackContext } from "../context/callback-context.js";
import {
  callbackList,
  runCallbackSlot,
  type AfterAgentCallback,
  type BeforeAgentCallback,
  type CallbackSlot,
} from "./callbacks.js";
import type { InvocationContext } from "../context/invocation-context.js";

export interface BaseAgentOptions {
  /** A JavaScript-identifier-like name, unique in the agent tree; not `user`. */
  name: string;
  /** One line saying what the agent does (other agents read it to decide on transfers). */
  description?: string;
  subAgents?: BaseAgent[];
  beforeAgentCallback?: CallbackSlot<BeforeAgentCallback>;
  afterAgentCallback?: CallbackSlot<AfterAgentCallback>;
}

const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * An agent: a named unit with sub-agents and before/after callbacks. Subclasses implement
 * `runAsyncImpl` (and `runLiveImpl` for live runs); `runAsync` wraps it with the callbacks.
 */
export abstract class BaseAgent {
  readonly name: string;
  readonly description: string;
  readonly subAgents: BaseAgent[];
  readonly beforeAgentCallback?: CallbackSlot<BeforeAgentCallback>;
  readonly afterAgentCallback?: CallbackSlot<AfterAgentCallback>;
  private parent?: BaseAgent;
  /** What the constructor was given, for `clone` (subclasses pass their whole options to `super`). */
  private readonly constructorOptions: BaseAgentOptions;

  constructor(options: BaseAgentOptions) {
    validateAgentName(options.name);
    this.constructorOptions = options;
    this.name = options.name;
    this.description = options.description ?? "";
    this.beforeAgentCallback = options.beforeAgentCallback;
    this.afterAgentCallback = options.afterAgentCallback;
    this.subAgents = [];
    const seen = new Set<string>();
    for (const sub of options.subAgents ?? []) {
      if (seen.has(sub.name))
        throw new ConfigurationError(
          `Agent "${this.name}" has two sub-agents named "${sub.name}"; names must be unique.`,
        );
      seen.add(sub.name);
      if (sub.parent) {
        throw new ConfigurationError(
          `Agent "${sub.name}" already has parent "${sub.parent.name}" and cannot also be a sub-agent of ` +
            `"${this.name}". Create a separate instance.`,
        );
      }
      sub.parent = this;
      this.subAgents.push(sub);
    }
  }

  /**
   * A new agent of the same class made from this one's constructor options with `update` over
   * them (ADK's `clone(update)`): `agent.clone({ name: "reviewer", instruction: "…" })`. Sub-agents
   * are cloned too (an agent has one parent) unless `update.subAgents` replaces them; tools,
   * models and callbacks are shared. The clone has no parent. An agent whose class does not pass
   * its whole options to `super` (or a `Workflow` built from `edges`, whose nodes have a parent
   * already) throws `ConfigurationError` unless `update` supplies what is missing.
   */
  clone<T extends BaseAgent>(this: T, update: Partial<BaseAgentOptions> & Record<string, unknown> = {}): T {
    const make = this.constructor as new (options: BaseAgentOptions) => T;
    const subAgents = update.subAgents ?? this.subAgents.map((sub) => sub.clone());
    return new make({ ...this.constructorOptions, ...update, subAgents });
  }

  /** The agent this one is a sub-agent of. */
  get parentAgent(): BaseAgent | undefined {
    return this.parent;
  }

  /** The top of the tree. */
  get rootAgent(): BaseAgent {
    let agent: BaseAgent = this;
    while (agent.parent) agent = agent.parent;
    return agent;
  }

  /** This agent or a descendant with the name. */
  findAgent(name: string): BaseAgent | undefined {
    return this.name === name ? this : this.findSubAgent(name);
  }

  /** A descendant (depth-first) with the name. */
  findSubAgent(name: string): BaseAgent | undefined {
    for (const sub of this.subAgents) {
      const found = sub.findAgent(name);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * Runs the agent for one invocation (text mode), yielding its events. Without agent callbacks
   * (its own or plugins') the agent's own generator is returned as it is: a layer forwarding each
   * event costs promises and microtask turns per event, on every agent of every run.
   */
  runAsync(parentContext: InvocationContext): AsyncGenerator<Event, void, void> {
    const ctx = parentContext.withAgent(this);
    if (
      !hasAgentCallbacks(ctx, "beforeAgentCallback", this.beforeAgentCallback) &&
      !hasAgentCallbacks(ctx, "afterAgentCallback", this.afterAgentCallback)
    ) {
      return ctx.isEnded ? noEvents() : this.runAsyncImpl(ctx);
    }
    return this.runWithCallbacks(ctx);
  }

  /** `runAsync` with the before- and after-agent callbacks around the agent's own run. */
  private async *runWithCallbacks(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    const before = await this.handleBeforeAgent(ctx);
    if (before) yield before;
    if (ctx.isEnded) return;
    yield* this.runAsyncImpl(ctx);
    if (ctx.isEnded) return;
    const after = await this.handleAfterAgent(ctx);
    if (after) yield after;
  }

  /** Runs the agent for a live (BIDI) invocation. */
  async *runLive(parentContext: InvocationContext): AsyncGenerator<Event, void, void> {
    const ctx = parentContext.withAgent(this);
    const before = await this.handleBeforeAgent(ctx);
    if (before) yield before;
    if (ctx.isEnded) return;
    for await (const event of this.runLiveImpl(ctx)) yield event;
    const after = await this.handleAfterAgent(ctx);
    if (after) yield after;
  }

  protected abstract runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void>;

  protected runLiveImpl(_ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    throw new ConfigurationError(`Agent "${this.name}" (${this.constructor.name}) does not support live runs.`);
  }

  /** Releases resources of this agent and its sub-agents (toolsets, ...). */
  async close(): Promise<void> {
    await Promise.all(this.subAgents.map((s) => s.close()));
  }

  /** Plugins first, then the agent's callbacks; returned content ends this agent's turn. */
  private async handleBeforeAgent(ctx: InvocationContext): Promise<Event | undefined> {
    if (!hasAgentCallbacks(ctx, "beforeAgentCallback", this.beforeAgentCallback)) return undefined;
    const context = new CallbackContext(ctx);
    let content: Content | undefined = await ctx.pluginManager.run("beforeAgentCallback", { agent: this, context });
    if (!content) content = await runCallbackSlot(this.beforeAgentCallback, { context });
    if (content) ctx.endInvocation = true;
    return this.callbackEvent(ctx, context, content);
  }

  private async handleAfterAgent(ctx: InvocationContext): Promise<Event | undefined> {
    if (!hasAgentCallbacks(ctx, "afterAgentCallback", this.afterAgentCallback)) return undefined;
    const context = new CallbackContext(ctx);
    let content: Content | undefined = await ctx.pluginManager.run("afterAgentCallback", { agent: this, context });
    if (!content) content = await runCallbackSlot(this.afterAgentCallback, { context });
    return this.callbackEvent(ctx, context, content);
  }

  private callbackEvent(
    ctx: InvocationContext,
    context: CallbackContext,
    content: Content | undefined,
  ): Event | undefined {
    const hasState =
      Object.keys(context.actions.stateDelta).length > 0 || Object.keys(context.actions.artifactDelta).length > 0;
    if (!content && !hasState) return undefined;
    return createEvent({
      invocationId: ctx.invocationId,
      author: this.name,
      branch: ctx.branch,
      content: content ? { role: content.role ?? "model", parts: content.parts ?? [] } : undefined,
      actions: context.actions,
    });
  }
}

/** A run that yields nothing (an agent asked to run after the invocation ended). */
async function* noEvents(): AsyncGenerator<Event, void, void> {}

/** Whether a plugin or the agent has a callback here (without one, no context is made). */
function hasAgentCallbacks(
  ctx: InvocationContext,
  hook: "beforeAgentCallback" | "afterAgentCallback",
  slot: CallbackSlot<BeforeAgentCallback | AfterAgentCallback> | undefined,
): boolean {
  return ctx.pluginManager.hasHook(hook) || callbackList(slot).length > 0;
}

/** Throws `ConfigurationError` unless the name is a valid agent name. */
export function validateAgentName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    throw new ConfigurationError(
      `Invalid agent name ${JSON.stringify(name)}: use letters, digits and underscores, starting with a letter or ` +
        `underscore.`,
    );
  }
  if (name === "user")
    throw new ConfigurationError('An agent cannot be named "user": that name is reserved for the end user.');
}
