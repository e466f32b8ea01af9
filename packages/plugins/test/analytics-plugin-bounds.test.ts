// AnalyticsPlugin keeps nothing of a run past its end, whichever hooks the run skipped, and holds
// at most maxQueueSize rows for a slow sink.
import { describe, expect, it } from "@jest/globals";
import {
  BasePlugin,
  ConfigurationError,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  type LlmAgentOptions,
  LongRunningFunctionTool,
  RunAbortedError,
  type BaseTool,
  type ToolContext,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { AnalyticsPlugin, AnalyticsQueueFullError } from "../src/index.js";
import { MemorySink, WEATHER_RUN_ROWS, weatherAgent } from "./analytics-fixtures.js";
import { runOnce } from "./helpers.js";

/** A promise settled by hand. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Runs one message on a new session; returns the error the run ended with, if any. */
async function runTo(
  runner: InMemoryRunner,
  request: { signal?: AbortSignal; runConfig?: { maxConcurrentToolCalls?: number } } = {},
): Promise<unknown> {
  const session = await runner.sessionService.createSession({ appName: "plugins_test", userId: "u" });
  try {
    for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: "go", ...request })) void _;
    return undefined;
  } catch (error) {
    return error;
  }
}

/** Tells when a tool call's before and after hooks ran (registered after the analytics plugin). */
class ToolWatch extends BasePlugin {
  readonly before = new Map<string, ReturnType<typeof deferred>>();
  readonly after = new Map<string, ReturnType<typeof deferred>>();
  constructor(callIds: string[]) {
    super("tool_watch");
    for (const id of callIds) {
      this.before.set(id, deferred());
      this.after.set(id, deferred());
    }
  }
  override beforeToolCallback({ context }: { tool: BaseTool; args: Record<string, unknown>; context: ToolContext }) {
    this.before.get(context.functionCallId!)?.resolve();
    return undefined;
  }
  override afterToolCallback({
    context,
  }: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    response: Record<string, unknown>;
  }) {
    this.after.get(context.functionCallId!)?.resolve();
    return undefined;
  }
}

/** A tool that waits for `gate`. */
function slowTool(gate: Promise<void>) {
  return new FunctionTool({
    name: "slow",
    description: "Slow",
    execute: async () => {
      await gate;
      return { done: true };
    },
  });
}

/** An agent `a` with the analytics plugin (then `more` plugins) on an in-memory runner and sink. */
function analyticsRun(agent: Omit<LlmAgentOptions, "name">, more: BasePlugin[] = []) {
  const sink = new MemorySink();
  const plugin = new AnalyticsPlugin({ sink });
  const runner = new InMemoryRunner({
    agent: new LlmAgent({ name: "a", ...agent }),
    appName: "plugins_test",
    plugins: [plugin, ...more],
  });
  /** The event types written so far. */
  const logged = async () => {
    await plugin.flush();
    return sink.rows.map((r) => r.event_type);
  };
  return { sink, plugin, runner, logged };
}

/** A long-running tool left pending: it returns nothing. */
const askManager = () =>
  new LongRunningFunctionTool({ name: "ask_manager", description: "Asks", execute: async () => undefined });

describe("AnalyticsPlugin keeps nothing of a run once it ended", () => {
  it("a long-running tool left without an answer (no after-tool hook)", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.functionCall("ask_manager", {}, "c1")] });
    const { plugin, runner, logged } = analyticsRun({ model, tools: [askManager()] });
    expect(await runTo(runner)).toBeUndefined();
    const types = await logged();
    expect(types).toContain("TOOL_STARTING");
    expect(types).not.toContain("TOOL_COMPLETED");
    expect(types.at(-1)).toBe("INVOCATION_COMPLETED");
    expect(plugin.trackedInvocations).toBe(0);
    await runner.close();
  });

  it("ctx.end() from a tool (no after-agent hook)", async () => {
    const endNow = new FunctionTool({
      name: "end_now",
      description: "Ends",
      execute: (_args, ctx: ToolContext) => {
        ctx.invocation.end();
        return { ended: true };
      },
    });
    const model = new ScriptedModel({ steps: [ScriptedModel.functionCall("end_now", {}, "c1")] });
    const { plugin, runner, logged } = analyticsRun({ model, tools: [endNow] });
    expect(await runTo(runner)).toBeUndefined();
    const types = await logged();
    expect(types).toContain("AGENT_STARTING");
    expect(types).not.toContain("AGENT_COMPLETED");
    expect(plugin.trackedInvocations).toBe(0);
    await runner.close();
  });

  it("a before-model callback answering instead of the model (no after-model hook)", async () => {
    const { plugin, runner, logged } = analyticsRun({
      model: new ScriptedModel({ steps: [] }),
      beforeModelCallback: () => ScriptedModel.text("From the cache."),
    });
    expect(await runTo(runner)).toBeUndefined();
    const types = await logged();
    expect(types).toContain("LLM_REQUEST");
    expect(types).not.toContain("LLM_RESPONSE");
    expect(plugin.trackedInvocations).toBe(0);
    await runner.close();
  });

  it("a fatal model error (no after-model or model-error hook)", async () => {
    const model = new ScriptedModel({ steps: [{ error: new ConfigurationError("no API key") }] });
    const { plugin, runner, logged } = analyticsRun({ model });
    expect(await runTo(runner)).toBeInstanceOf(ConfigurationError);
    const types = await logged();
    expect(types).toContain("LLM_REQUEST");
    expect(types).not.toContain("LLM_ERROR");
    expect(types.at(-1)).toBe("INVOCATION_COMPLETED");
    expect(plugin.trackedInvocations).toBe(0);
    await runner.close();
  });

  it("a run aborted while a tool runs, also once the tool finishes late", async () => {
    const gate = deferred();
    const watch = new ToolWatch(["c1"]);
    const model = new ScriptedModel({ steps: [ScriptedModel.functionCall("slow", {}, "c1")] });
    const { plugin, runner, logged } = analyticsRun({ model, tools: [slowTool(gate.promise)] }, [watch]);
    const abort = new AbortController();
    const run = runTo(runner, { signal: abort.signal });
    await watch.before.get("c1")!.promise;
    abort.abort(); // the client went away
    expect(await run).toBeInstanceOf(RunAbortedError);
    expect(plugin.trackedInvocations).toBe(0);
    gate.resolve();
    await watch.after.get("c1")!.promise; // the tool's after hooks ran, past the run's end
    expect(plugin.trackedInvocations).toBe(0);
    const types = await logged();
    expect(types).toContain("INVOCATION_COMPLETED");
    expect(types).not.toContain("AGENT_COMPLETED");
    await runner.close();
  });

  it("a tool call that starts after its run was aborted and ended", async () => {
    const gate = deferred();
    const watch = new ToolWatch(["c1", "c2"]);
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCalls([
          { name: "slow", id: "c1" },
          { name: "ask_manager", id: "c2" },
        ]),
      ],
    });
    const { plugin, runner } = analyticsRun({ model, tools: [slowTool(gate.promise), askManager()] }, [watch]);
    const abort = new AbortController();
    // One call at a time: the second starts once the first returns, after the abort ended the run.
    const run = runTo(runner, { signal: abort.signal, runConfig: { maxConcurrentToolCalls: 1 } });
    await watch.before.get("c1")!.promise;
    abort.abort();
    expect(await run).toBeInstanceOf(RunAbortedError);
    gate.resolve();
    await watch.before.get("c2")!.promise; // the analytics plugin's before-tool hook ran first
    expect(plugin.trackedInvocations).toBe(0);
    await runner.close();
  });

  it("many runs leave nothing behind, and their rows keep their latencies", async () => {
    const sink = new MemorySink();
    const plugin = new AnalyticsPlugin({ sink });
    for (let i = 0; i < 3; i++) await runOnce(weatherAgent(), [plugin], "Weather in Paris?");
    expect(plugin.trackedInvocations).toBe(0);
    await plugin.flush();
    const timed = ["LLM_RESPONSE", "TOOL_COMPLETED", "AGENT_COMPLETED", "INVOCATION_COMPLETED"];
    const spans = sink.rows.filter((r) => timed.includes(r.event_type));
    expect(spans).toHaveLength(3 * 5);
    expect(spans.every((r) => typeof r.latency_ms === "number")).toBe(true);
  });
});

describe("AnalyticsPlugin bounds the rows it holds for a slow sink", () => {
  it("counts rows queued and rows in batches waiting for the sink against maxQueueSize", async () => {
    const sink = new MemorySink();
    const gate = deferred();
    sink.gate = gate.promise; // the sink accepts nothing until released
    const reports: [unknown, number][] = [];
    const plugin = new AnalyticsPlugin({
      sink,
      maxQueueSize: 12,
      batchSize: 4,
      batchFlushInterval: "1h",
      onError: (error, info) => reports.push([error, info.droppedRows]),
    });
    let runner: InMemoryRunner | undefined;
    const invocations: string[] = [];
    for (let run = 1; run <= 5; run++) {
      const { runner: r, events } = await runOnce(weatherAgent(), [plugin], `question ${run}`);
      runner = r;
      invocations.push(events[0]!.invocationId);
      // Nothing was written: each of the 11 rows a run makes is held or dropped, at most 12 held.
      expect(plugin.droppedRows).toBe(Math.max(0, 11 * run - 12));
      expect(plugin.writtenRows).toBe(0);
    }
    // Told once when dropping started, not once per dropped row.
    expect(reports).toHaveLength(1);
    expect(reports[0]![0]).toBeInstanceOf(AnalyticsQueueFullError);
    expect((reports[0]![0] as AnalyticsQueueFullError).code).toBe("ANALYTICS_QUEUE_FULL");
    expect(reports[0]![1]).toBe(1);
    gate.resolve();
    await plugin.flush();
    // The rows held when the sink stalled are written, in order; the new rows past them were dropped.
    expect(plugin.writtenRows).toBe(12);
    expect(plugin.droppedRows).toBe(55 - 12);
    expect(sink.batches).toEqual([4, 4, 4]);
    expect(sink.rows.map((r) => r.event_type)).toEqual([...WEATHER_RUN_ROWS, "USER_MESSAGE_RECEIVED"]);
    expect(sink.rows.map((r) => r.invocation_id)).toEqual([...Array(11).fill(invocations[0]), invocations[1]]);
    // Once the sink caught up there is room again; the first row that fits ends the overflow, and
    // the rest of its drops are reported then, so the reports add up to every dropped row.
    await runOnce(weatherAgent(), [plugin], "again");
    await runner!.close();
    expect(plugin.writtenRows).toBe(12 + 11);
    expect(reports.map(([error, rows]) => [(error as AnalyticsQueueFullError).code, rows])).toEqual([
      ["ANALYTICS_QUEUE_FULL", 1],
      ["ANALYTICS_QUEUE_FULL", 55 - 12 - 1],
    ]);
  });

  it("reports the rest of an overflow when it closes during one", async () => {
    const sink = new MemorySink();
    const gate = deferred();
    sink.gate = gate.promise;
    const reports: [unknown, number][] = [];
    const plugin = new AnalyticsPlugin({
      sink,
      maxQueueSize: 3,
      batchSize: 1000,
      batchFlushInterval: "1h",
      closeTimeout: 10_000,
      onError: (error, info) => reports.push([error, info.droppedRows]),
    });
    const { runner } = await runOnce(weatherAgent(), [plugin], "hi");
    expect(plugin.droppedRows).toBe(8);
    expect(reports.map(([, rows]) => rows)).toEqual([1]);
    gate.resolve();
    await runner.close();
    expect(reports.map(([error, rows]) => [(error as AnalyticsQueueFullError).message, rows])).toEqual([
      [expect.stringContaining("3 rows are waiting for the sink (maxQueueSize)"), 1],
      ["AnalyticsPlugin: 7 more row(s) were dropped while the queue was full.", 7],
    ]);
    expect(sink.rows).toHaveLength(3);
  });
});
