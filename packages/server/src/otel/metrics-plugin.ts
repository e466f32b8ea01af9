import { errorType } from "../telemetry/error-type.js";
import {
  BasePlugin,
  type CallbackContext,
  type BeforeRunHookArgs,
  type EventHookArgs,
  type AfterRunHookArgs,
  type BeforeModelHookArgs,
  type AfterModelHookArgs,
  type ModelErrorHookArgs,
  type AfterToolHookArgs,
  type ToolErrorHookArgs,
} from "@agentkit/core";
import type { Attributes, Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";
import { GEN_AI_SYSTEM, TraceAttr } from "../telemetry/trace-attributes.js";

/** The metric names this plugin records (GenAI semantic conventions, then agentkit's own). */
export const OtelMetric = {
  tokenUsage: "gen_ai.client.token.usage",
  operationDuration: "gen_ai.client.operation.duration",
  runs: "agentkit.runs",
  activeRuns: "agentkit.runs.active",
  toolCalls: "agentkit.tool.calls",
  errors: "agentkit.errors",
  runQueueWait: "agentkit.run_queue.wait",
} as const;

/** Attribute keys of agentkit's own metrics and logs. */
export const OtelAttr = {
  appName: "agentkit.app.name",
  outcome: "agentkit.outcome",
  errorSource: "agentkit.error.source",
  errorType: "error.type",
  tokenType: "gen_ai.token.type",
} as const;

// The buckets the GenAI semantic conventions recommend for these two histograms.
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** What the plugin says about each finished run besides metrics (a log record with its ids). */
export type RunLogSink = (message: string, attributes: Attributes) => void;

/**
 * Records the GenAI client metrics (`gen_ai.client.token.usage` by `gen_ai.token.type`,
 * `gen_ai.client.operation.duration`) for every model call and agentkit's run metrics: runs,
 * active runs, tool calls and errors (model errors, tool errors, events with an `errorCode`).
 * Keyed by invocation, agent and call id, like the tracing plugin, so concurrent runs count apart.
 */
export class OtelMetricsPlugin extends BasePlugin {
  private readonly tokenUsage: Histogram;
  private readonly operationDuration: Histogram;
  private readonly runs: Counter;
  private readonly activeRuns: UpDownCounter;
  private readonly toolCalls: Counter;
  private readonly errors: Counter;
  /** Model calls in flight: start time by invocation id + agent name. */
  private readonly modelStarts = new Map<string, number>();
  private readonly runStarts = new Map<string, { started: number; app: string }>();

  constructor(
    meter: Meter,
    private readonly runLog?: RunLogSink,
  ) {
    super("agentkit_otel_metrics");
    this.tokenUsage = meter.createHistogram(OtelMetric.tokenUsage, {
      description: "Tokens used per model call, by gen_ai.token.type (input, output).",
      unit: "{token}",
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.operationDuration = meter.createHistogram(OtelMetric.operationDuration, {
      description: "Duration of model calls.",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.runs = meter.createCounter(OtelMetric.runs, { description: "Runs (invocations) started.", unit: "{run}" });
    this.activeRuns = meter.createUpDownCounter(OtelMetric.activeRuns, {
      description: "Runs in progress.",
      unit: "{run}",
    });
    this.toolCalls = meter.createCounter(OtelMetric.toolCalls, {
      description: "Tool calls, by outcome.",
      unit: "{call}",
    });
    this.errors = meter.createCounter(OtelMetric.errors, {
      description: "Model errors, tool errors and error events, by source and error.type.",
      unit: "{error}",
    });
  }

  override beforeRunCallback({ invocationContext }: BeforeRunHookArgs): undefined {
    const app = invocationContext.appName;
    this.runStarts.set(invocationContext.invocationId, { started: performance.now(), app });
    this.runs.add(1, { [OtelAttr.appName]: app });
    this.activeRuns.add(1, { [OtelAttr.appName]: app });
    return undefined;
  }

  override afterRunCallback({ invocationContext, error }: AfterRunHookArgs): void {
    const run = this.runStarts.get(invocationContext.invocationId);
    if (!run) return;
    this.runStarts.delete(invocationContext.invocationId);
    this.activeRuns.add(-1, { [OtelAttr.appName]: run.app });
    // A run that threw (abort, budget, LLM-call limit, an agent's error) counts as an error of its own.
    if (error !== undefined)
      this.errors.add(1, {
        [OtelAttr.appName]: run.app,
        [OtelAttr.errorSource]: "run",
        [OtelAttr.errorType]: errorType(error),
      });
    for (const key of this.modelStarts.keys())
      if (key.startsWith(`${invocationContext.invocationId}\n`)) this.modelStarts.delete(key);
    this.runLog?.("run finished", {
      [OtelAttr.appName]: run.app,
      [TraceAttr.invocationId]: invocationContext.invocationId,
      [TraceAttr.sessionId]: invocationContext.session.id,
      [TraceAttr.userId]: invocationContext.session.userId,
      "agentkit.run.duration_ms": Math.round(performance.now() - run.started),
    });
  }

  /** Its model hooks time the call and never look at the contents (no copy of the history is made for it). */
  override get readsContentsOnly(): boolean {
    return true;
  }

  override beforeModelCallback({ context }: BeforeModelHookArgs): undefined {
    this.modelStarts.set(modelKey(context), performance.now());
    return undefined;
  }

  override afterModelCallback({ context, response }: AfterModelHookArgs): undefined {
    if (response.partial) return undefined;
    const attributes = this.modelAttributes(context);
    this.endModelCall(
      context,
      response.errorCode ? { ...attributes, [OtelAttr.errorType]: response.errorCode } : attributes,
    );
    const usage = response.usageMetadata;
    if (usage?.promptTokenCount !== undefined)
      this.tokenUsage.record(usage.promptTokenCount, { ...attributes, [OtelAttr.tokenType]: "input" });
    if (usage?.candidatesTokenCount !== undefined)
      this.tokenUsage.record(usage.candidatesTokenCount, { ...attributes, [OtelAttr.tokenType]: "output" });
    return undefined;
  }

  override onModelErrorCallback({ context, error }: ModelErrorHookArgs): undefined {
    const type = errorType(error);
    this.endModelCall(context, { ...this.modelAttributes(context), [OtelAttr.errorType]: type });
    this.errors.add(1, {
      [OtelAttr.appName]: context.invocation.appName,
      [OtelAttr.errorSource]: "model",
      [OtelAttr.errorType]: type,
    });
    return undefined;
  }

  override afterToolCallback({ tool, context }: AfterToolHookArgs): undefined {
    this.toolCalls.add(1, {
      [OtelAttr.appName]: context.invocation.appName,
      [TraceAttr.toolName]: tool.name,
      [OtelAttr.outcome]: "ok",
    });
    return undefined;
  }

  override onToolErrorCallback({ tool, context, error }: ToolErrorHookArgs): undefined {
    const app = context.invocation.appName;
    this.toolCalls.add(1, { [OtelAttr.appName]: app, [TraceAttr.toolName]: tool.name, [OtelAttr.outcome]: "error" });
    this.errors.add(1, {
      [OtelAttr.appName]: app,
      [OtelAttr.errorSource]: "tool",
      [OtelAttr.errorType]: errorType(error),
    });
    return undefined;
  }

  override onEventCallback({ invocationContext, event }: EventHookArgs): undefined {
    if (event.errorCode && !event.partial)
      this.errors.add(1, {
        [OtelAttr.appName]: invocationContext.appName,
        [OtelAttr.errorSource]: "event",
        [OtelAttr.errorType]: event.errorCode,
      });
    return undefined;
  }

  private modelAttributes(context: CallbackContext): Attributes {
    return {
      [TraceAttr.operationName]: "generate_content",
      [TraceAttr.system]: GEN_AI_SYSTEM,
      [TraceAttr.requestModel]: modelName(context),
      [OtelAttr.appName]: context.invocation.appName,
    };
  }

  private endModelCall(context: CallbackContext, attributes: Attributes): void {
    const key = modelKey(context);
    const started = this.modelStarts.get(key);
    if (started === undefined) return;
    this.modelStarts.delete(key);
    this.operationDuration.record((performance.now() - started) / 1000, attributes);
  }
}

function modelKey(context: CallbackContext): string {
  return `${context.invocationId}\n${context.agentName}`;
}

function modelName(context: CallbackContext): string {
  const model = (context.invocation.agent as { model?: unknown }).model;
  if (typeof model === "string") return model;
  const name = (model as { model?: unknown } | undefined)?.model;
  return typeof name === "string" ? name : "";
}
