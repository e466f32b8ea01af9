// Custom agents and plugins shared by the runner and workflow-agent tests.
import { setTimeout as delay } from "node:timers/promises";
import {
  BaseAgent,
  BasePlugin,
  BaseToolset,
  createEvent,
  type BaseAgentOptions,
  type BaseTool,
  type Content,
  type Event,
  type EventInit,
  type InvocationContext,
} from "../../src/index.js";

export type Step = Omit<EventInit, "author" | "invocationId"> & { delayMs?: number };

/** Yields the scripted events (one per step), recording what it saw before each. */
export class ScriptAgent extends BaseAgent {
  readonly seen: { stateBefore: Record<string, unknown>; eventCount: number; branch?: string }[] = [];
  finallyRan = 0;
  closed = 0;
  private readonly steps: Step[];

  constructor(options: BaseAgentOptions & { steps?: Step[] }) {
    super(options);
    this.steps = options.steps ?? [];
  }

  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    try {
      for (const { delayMs, ...step } of this.steps) {
        if (delayMs) await sleep(delayMs, ctx.signal);
        this.seen.push({
          stateBefore: { ...ctx.session.state },
          eventCount: ctx.session.events.length,
          branch: ctx.branch,
        });
        yield createEvent({ ...step, author: this.name, invocationId: ctx.invocationId, branch: ctx.branch });
      }
    } finally {
      this.finallyRan += 1;
    }
  }

  override async close(): Promise<void> {
    this.closed += 1;
    await super.close();
  }
}

/** Text event step. */
export const say = (text: string, extra: Partial<Step> = {}): Step => ({
  content: { role: "model", parts: [{ text }] },
  ...extra,
});

export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    // Reject with the abort reason, as the flow does, rather than node's generic AbortError.
    throw signal?.aborted ? signal.reason : error;
  }
}

/** Records the name of every hook it sees, in order. */
export class RecordingPlugin extends BasePlugin {
  readonly calls: string[] = [];
  closed = 0;

  constructor(name = "recorder") {
    super(name);
  }
  override onUserMessageCallback() {
    this.calls.push("onUserMessage");
    return undefined;
  }
  override beforeRunCallback() {
    this.calls.push("beforeRun");
    return undefined;
  }
  override beforeAgentCallback() {
    this.calls.push("beforeAgent");
    return undefined;
  }
  override beforeModelCallback() {
    this.calls.push("beforeModel");
    return undefined;
  }
  override afterModelCallback() {
    this.calls.push("afterModel");
    return undefined;
  }
  override onEventCallback() {
    this.calls.push("onEvent");
    return undefined;
  }
  override beforeToolCallback() {
    this.calls.push("beforeTool");
    return undefined;
  }
  override afterToolCallback() {
    this.calls.push("afterTool");
    return undefined;
  }
  override afterAgentCallback() {
    this.calls.push("afterAgent");
    return undefined;
  }
  override afterRunCallback() {
    this.calls.push("afterRun");
  }
  override async close() {
    this.closed += 1;
  }
}

/** A toolset that records how often it was closed. */
export class RecordingToolset extends BaseToolset {
  closed = 0;
  constructor(private readonly tools: BaseTool[] = []) {
    super();
  }
  override async getTools(): Promise<BaseTool[]> {
    return this.tools;
  }
  override async close(): Promise<void> {
    this.closed += 1;
  }
}

export async function collect(gen: AsyncGenerator<Event, void, void>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of gen) out.push(e);
  return out;
}

export const userText = (text: string): Content => ({ role: "user", parts: [{ text }] });
