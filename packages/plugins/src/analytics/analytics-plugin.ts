import {
  BasePlugin,
  ConfigurationError,
  type InvocationContext,
  type UserMessageHookArgs,
  type BeforeRunHookArgs,
  type EventHookArgs,
  type AfterRunHookArgs,
  type AgentHookArgs,
  type BeforeModelHookArgs,
  type AfterModelHookArgs,
  type ModelErrorHookArgs,
  type BeforeToolHookArgs,
  type AfterToolHookArgs,
  type ToolErrorHookArgs,
} from "@agentkit/core";
import { sessionEvents } from "@agentkit/core/internal";
import type { AnalyticsPluginOptions } from "./analytics-options.js";
import { ANALYTICS_EVENT_TYPES, type AnalyticsEventType, type AnalyticsRow } from "./analytics-row.js";
import { AnalyticsRowWriter } from "./analytics-row-writer.js";
import { buildAnalyticsRow, type AnalyticsRowData, type AnalyticsRowFormat } from "./build-analytics-row.js";
import { parseDuration } from "./parse-duration.js";

export type { AnalyticsPluginOptions, AnalyticsRetryConfig, ContentFormatter } from "./analytics-options.js";

/**
 * Logs run, agent, model and tool events as rows to a warehouse table through a sink
 * (BigQuery, PostgreSQL, JSON lines). Hooks only enqueue: rows are written in batches in the
 * background with retries, so a slow or failing sink never blocks or fails the agent run.
 * `close()` (called by `runner.close()`) writes what is left.
 */
export class AnalyticsPlugin extends BasePlugin {
  private readonly enabled: boolean;
  private readonly types: ReadonlySet<AnalyticsEventType>;
  private readonly format: AnalyticsRowFormat;
  private readonly logSessionMetadata: boolean;
  /** The queue, batches, retries and the sink (analytics-row-writer.ts). */
  private readonly writer: AnalyticsRowWriter;
  /**
   * Start times of the spans in progress, per invocation id (then by span: run, agent, model,
   * tool). A span's end hook takes its start; the run's end (`afterRunCallback`, which the runner
   * calls at the end of every run: completed, failed, aborted or stopped early) drops the
   * invocation's whole entry, so spans whose end hook never comes (a long-running or suspended
   * tool, `ctx.end()`, a before-model callback's answer, a fatal model error, an abort) are not
   * kept past their run.
   */
  private readonly started = new Map<string, Map<string, number>>();

  constructor(options: AnalyticsPluginOptions) {
    super(options?.name ?? "analytics");
    if (!options?.sink || typeof options.sink.writeRows !== "function")
      throw new ConfigurationError("AnalyticsPlugin needs a sink (e.g. new JsonlAnalyticsSink({ dir })).");
    this.enabled = options.enabled ?? true;
    for (const t of [...(options.eventAllowlist ?? []), ...(options.eventDenylist ?? [])]) {
      if (!(ANALYTICS_EVENT_TYPES as readonly string[]).includes(t))
        throw new ConfigurationError(
          `AnalyticsPlugin: unknown event type "${t}". Known: ${ANALYTICS_EVENT_TYPES.join(", ")}.`,
        );
    }
    const allowed = options.eventAllowlist ? new Set(options.eventAllowlist) : new Set(ANALYTICS_EVENT_TYPES);
    for (const t of options.eventDenylist ?? []) allowed.delete(t);
    this.types = allowed;
    this.format = {
      maxContentLength: options.maxContentLength ?? 500,
      logMultiModal: options.logMultiModalContent ?? false,
      ...(options.contentFormatter ? { formatter: options.contentFormatter } : {}),
      ...(options.customTags ? { customTags: options.customTags } : {}),
    };
    this.logSessionMetadata = options.logSessionMetadata ?? true;
    let reported = false;
    this.writer = new AnalyticsRowWriter({
      sink: options.sink,
      batchSize: positiveInt(options.batchSize ?? 50, "batchSize"),
      flushIntervalMs: parseDuration(options.batchFlushInterval ?? 1000, "batchFlushInterval"),
      clusteringFields: options.clusteringFields ?? ["event_type", "agent", "user_id"],
      autoSchemaUpgrade: options.autoSchemaUpgrade ?? true,
      retry: {
        initialDelayMs: parseDuration(options.retry?.initialDelay ?? 500, "retry.initialDelay"),
        maxDelayMs: parseDuration(options.retry?.maxDelay ?? 10_000, "retry.maxDelay"),
        maxAttempts: positiveInt(options.retry?.maxAttempts ?? 3, "retry.maxAttempts"),
      },
      maxQueueSize: positiveInt(options.maxQueueSize ?? 10_000, "maxQueueSize"),
      closeTimeoutMs: parseDuration(options.closeTimeout ?? 5000, "closeTimeout"),
      onError:
        options.onError ??
        ((error, info) => {
          if (reported) return;
          reported = true;
          process.stderr.write(
            `${this.name}: dropped ${info.droppedRows} analytics rows: ${(error as Error)?.message ?? String(error)} ` +
              `(further failures are not reported)\n`,
          );
        }),
    });
  }

  /** Rows dropped because `maxQueueSize` rows were held, a batch failed for good, or a row could not be built. */
  get droppedRows(): number {
    return this.writer.droppedRows;
  }

  /** Rows the sink accepted. */
  get writtenRows(): number {
    return this.writer.writtenRows;
  }

  override onUserMessageCallback({ invocationContext, userMessage }: UserMessageHookArgs): undefined {
    this.add(invocationContext, "USER_MESSAGE_RECEIVED", { content: userMessage });
    return undefined;
  }

  override beforeRunCallback({ invocationContext }: BeforeRunHookArgs): undefined {
    this.start(invocationContext, "run");
    this.add(invocationContext, "INVOCATION_STARTING", {
      agent: invocationContext.agent.name,
      attributes: this.sessionMetadata(invocationContext),
    });
    return undefined;
  }

  override afterRunCallback({ invocationContext }: AfterRunHookArgs): void {
    try {
      this.add(invocationContext, "INVOCATION_COMPLETED", {
        agent: invocationContext.agent.name,
        latencyMs: this.elapsed(invocationContext, "run"),
        attributes: this.sessionMetadata(invocationContext),
      });
    } finally {
      this.started.delete(invocationContext.invocationId);
    }
  }

  override onEventCallback({ invocationContext, event }: EventHookArgs): undefined {
    const delta = event.actions.stateDelta;
    if (delta && Object.keys(delta).length > 0 && !event.partial) {
      this.add(invocationContext, "STATE_DELTA", {
        agent: event.author,
        content: delta,
        attributes: { event_id: event.id },
      });
    }
    return undefined;
  }

  override beforeAgentCallback({ agent, context }: AgentHookArgs): undefined {
    this.start(context.invocation, `agent/${agent.name}`);
    this.add(context.invocation, "AGENT_STARTING", { agent: agent.name });
    return undefined;
  }

  override afterAgentCallback({ agent, context }: AgentHookArgs): undefined {
    this.add(context.invocation, "AGENT_COMPLETED", {
      agent: agent.name,
      latencyMs: this.elapsed(context.invocation, `agent/${agent.name}`),
    });
    return undefined;
  }

  /**
   * Without a `contentFormatter` the LLM_REQUEST row only reads the request's contents, while the
   * hook runs (the row is built before it returns): the flow may hand over the session's shared
   * history instead of a copy. A formatter is given the contents and may edit or keep them.
   */
  override get readsContentsOnly(): boolean {
    return this.format.formatter === undefined;
  }

  override beforeModelCallback({ context, request }: BeforeModelHookArgs): undefined {
    this.start(context.invocation, `model/${context.agentName}`);
    this.add(context.invocation, "LLM_REQUEST", {
      agent: context.agentName,
      model: request.model ?? null,
      content: { systemInstruction: request.config.systemInstruction, contents: request.contents },
      attributes: { tools: Object.keys(request.toolsDict ?? {}) },
    });
    return undefined;
  }

  override afterModelCallback({ context, response }: AfterModelHookArgs): undefined {
    if (response.partial) return undefined;
    this.add(context.invocation, response.errorCode ? "LLM_ERROR" : "LLM_RESPONSE", {
      agent: context.agentName,
      content: response.content ?? null,
      latencyMs: this.elapsed(context.invocation, `model/${context.agentName}`),
      attributes: { usage: response.usageMetadata, finish_reason: response.finishReason },
      ...(response.errorCode ? { error: `${response.errorCode}: ${response.errorMessage ?? ""}` } : {}),
    });
    return undefined;
  }

  override onModelErrorCallback({ context, request, error }: ModelErrorHookArgs): undefined {
    this.add(context.invocation, "LLM_ERROR", {
      agent: context.agentName,
      model: request.model ?? null,
      latencyMs: this.elapsed(context.invocation, `model/${context.agentName}`),
      error: errorMessage(error),
    });
    return undefined;
  }

  override beforeToolCallback({ tool, args, context }: BeforeToolHookArgs): undefined {
    this.start(context.invocation, `tool/${context.functionCallId ?? tool.name}`);
    this.add(context.invocation, "TOOL_STARTING", {
      agent: context.agentName,
      tool: tool.name,
      content: args,
      attributes: { call_id: context.functionCallId },
    });
    return undefined;
  }

  override afterToolCallback({ tool, context, response }: AfterToolHookArgs): undefined {
    this.add(context.invocation, "TOOL_COMPLETED", {
      agent: context.agentName,
      tool: tool.name,
      content: response,
      latencyMs: this.elapsed(context.invocation, `tool/${context.functionCallId ?? tool.name}`),
      attributes: { call_id: context.functionCallId },
    });
    return undefined;
  }

  override onToolErrorCallback({ tool, context, error }: ToolErrorHookArgs): undefined {
    this.add(context.invocation, "TOOL_ERROR", {
      agent: context.agentName,
      tool: tool.name,
      latencyMs: this.elapsed(context.invocation, `tool/${context.functionCallId ?? tool.name}`),
      error: errorMessage(error),
      attributes: { call_id: context.functionCallId },
    });
    return undefined;
  }

  /** Writes every queued row now (waits for batches in flight too). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /**
   * Flushes and closes the sink, waiting at most `closeTimeout` for each; past it the sink's
   * signal is aborted and the rows not written are counted in `droppedRows`. Never throws.
   */
  override close(): Promise<void> {
    return this.writer.close();
  }

  private add(ctx: InvocationContext, type: AnalyticsEventType, data: AnalyticsRowData): void {
    if (!this.enabled || this.writer.isClosed || !this.types.has(type)) return;
    // Logging must never fail the run: a row that cannot be built (a throwing contentFormatter,
    // content that cannot be serialized) is dropped, counted and reported.
    let row: AnalyticsRow;
    try {
      row = buildAnalyticsRow(ctx, type, data, this.format);
    } catch (error) {
      this.writer.dropUnbuilt(error);
      return;
    }
    this.writer.push(row);
  }

  private sessionMetadata(ctx: InvocationContext): Record<string, unknown> | undefined {
    if (!this.logSessionMetadata) return undefined;
    return {
      session_metadata: {
        state: ctx.session.state,
        last_update_time: ctx.session.lastUpdateTime,
        // Without building `session.events`: over a long stored history that is a copy of it.
        events: sessionEvents(ctx.session).length,
      },
    };
  }

  /** @internal Invocations with span start times kept (0 once every run has ended). */
  get trackedInvocations(): number {
    return this.started.size;
  }

  private start(ctx: InvocationContext, span: string): void {
    let spans = this.started.get(ctx.invocationId);
    if (!spans) {
      // A span of an aborted run with no entry: the run may have ended already (an abort ends it
      // at once, while the agent's step goes on until its next event, e.g. the next of several
      // tool calls starts), and an entry made now would never be dropped. Logged without latency.
      if (span !== "run" && ctx.signal?.aborted) return;
      spans = new Map();
      this.started.set(ctx.invocationId, spans);
    }
    spans.set(span, performance.now());
  }

  private elapsed(ctx: InvocationContext, span: string): number | null {
    const spans = this.started.get(ctx.invocationId);
    const start = spans?.get(span);
    if (start === undefined) return null;
    spans!.delete(span);
    return Math.round(performance.now() - start);
  }
}

function positiveInt(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigurationError(`AnalyticsPlugin: ${what} must be an integer of at least 1, got ${value}.`);
  return value;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
