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

export type Step = Omit<EventInit, "author" | "invocationId"> & {
  /** Called as the step starts (e.g. to abort the run at a known point). */
  onStart?: () => void;
  /** Awaited before the step's event (abortable by the run): orders agents without timers. */
  after?: () => Promise<void>;
  /** Waited before the step's event (abortable by the run). */
  delayMs?: number;
};

/** Waits "forever": a step that only an abort can end (a broken abort fails by the test's timeout). */
export const FOREVER_MS = 3_600_000;

/**
 * Yields the scripted events (one per step), recording what it saw before each. `started` and
 * `finished` (its finally block ran) and `resumed(n)` (the consumer pulled again after its n-th
 * event) let tests wait for those points instead of sleeping.
 */
export class ScriptAgent extends BaseAgent {
  readonly seen: { stateBefore: Record<string, unknown>; eventCount: number; branch?: string }[] = [];
  finallyRan = 0;
  closed = 0;
  readonly started = deferred();
  readonly finished = deferred();
  private readonly steps: Step[];
  private resumedCount = 0;
  private readonly resumeWaiters: { n: number; resolve: () => void }[] = [];

  constructor(options: BaseAgentOptions & { steps?: Step[] }) {
    super(options);
    this.steps = options.steps ?? [];
  }

  /** Resolves once the consumer has resumed this agent after its n-th event. */
  resumed(n: number): Promise<void> {
    if (this.resumedCount >= n) return Promise.resolve();
    return new Promise((resolve) => this.resumeWaiters.push({ n, resolve }));
  }

  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    this.started.resolve();
    try {
      for (const { onStart, after, delayMs, ...step } of this.steps) {
        onStart?.();
        if (after) await untilAborted(after(), ctx.signal);
        if (delayMs) await sleep(delayMs, ctx.signal);
        this.seen.push({
          stateBefore: { ...ctx.session.state },
          eventCount: ctx.session.events.length,
          branch: ctx.branch,
        });
        yield createEvent({ ...step, author: this.name, invocationId: ctx.invocationId, branch: ctx.branch });
        this.resumedCount += 1;
        for (const w of this.resumeWaiters.filter((w) => w.n <= this.resumedCount)) w.resolve();
      }
    } finally {
      this.finallyRan += 1;
      this.finished.resolve();
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

/** A promise with its resolve function. */
export function deferred<T = void>(): Promise<T> & { resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return Object.assign(promise, { resolve });
}

/**
 * Lets every pending promise reaction run (one turn of the event loop). Enough for in-memory
 * services, which never wait on I/O: after it, nothing the run could still do is left undone.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function untilAborted(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

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
  /** The `error` each afterRun was given (undefined for a run that did not throw). */
  readonly runEndings: unknown[] = [];
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
  override afterRunCallback({ error }: { error?: unknown }) {
    this.calls.push("afterRun");
    this.runEndings.push(error);
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

export { collect } from "@agentkit/test-support/collect";

export const userText = (text: string): Content => ({ role: "user", parts: [{ text }] });
