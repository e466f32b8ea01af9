import {
  BasePlugin,
  ConfigurationError,
  getTextOf,
  type BaseAgent,
  type BaseTool,
  type CallbackContext,
  type Content,
  type Event,
  type InvocationContext,
  type LlmRequest,
  type LlmResponse,
  type ToolContext,
} from "@agentkit/core";
import {
  ANALYTICS_EVENT_TYPES,
  type AnalyticsEventType,
  type AnalyticsRow,
  type AnalyticsSink,
} from "./analytics-row.js";
import { AnalyticsCloseTimeoutError, safeStringify, settlesWithin } from "./abortable.js";
import { isContent, stripBinary } from "./strip-binary.js";
import { parseDuration } from "./parse-duration.js";

import type { AnalyticsPluginOptions, ContentFormatter } from "./analytics-options.js";
import { retry } from "@agentkit/core/internal";

export type { AnalyticsPluginOptions, AnalyticsRetryConfig, ContentFormatter } from "./analytics-options.js";

/**
 * Logs run, agent, model and tool events as rows to a warehouse table through a sink
 * (BigQuery, PostgreSQL, JSON lines). Hooks only enqueue: rows are written in batches in the
 * background with retries, so a slow or failing sink never blocks or fails the agent run.
 * `close()` (called by `runner.close()`) writes what is left.
 */
export class AnalyticsPlugin extends BasePlugin {
  private readonly sink: AnalyticsSink;
  private readonly enabled: boolean;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly clusteringFields: string[];
  private readonly customTags?: Record<string, string>;
  private readonly types: ReadonlySet<AnalyticsEventType>;
  private readonly maxContentLength: number;
  private readonly logMultiModal: boolean;
  private readonly logSessionMetadata: boolean;
  private readonly autoSchemaUpgrade: boolean;
  private readonly formatter?: ContentFormatter;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private readonly maxAttempts: number;
  private readonly maxQueueSize: number;
  private readonly onError: (error: unknown, info: { droppedRows: number }) => void;

  private readonly queue: AnalyticsRow[] = [];
  private readonly started = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private prepared?: Promise<void>;
  private closed = false;
  /** Rows handed to the write chain and not finished yet. */
  private pendingRows = 0;
  /** Set when close() timed out: the rows still pending were counted as dropped then. */
  private gaveUp = false;
  private readonly abort = new AbortController();
  private readonly closeTimeoutMs: number;
  /** Rows dropped because the queue was full or a batch failed for good. */
  droppedRows = 0;
  /** Rows the sink accepted. */
  writtenRows = 0;

  constructor(options: AnalyticsPluginOptions) {
    super(options?.name ?? "analytics");
    if (!options?.sink || typeof options.sink.writeRows !== "function")
      throw new ConfigurationError("AnalyticsPlugin needs a sink (e.g. new JsonlAnalyticsSink({ dir })).");
    this.sink = options.sink;
    this.enabled = options.enabled ?? true;
    this.batchSize = positiveInt(options.batchSize ?? 50, "batchSize");
    this.flushIntervalMs = parseDuration(options.batchFlushInterval ?? 1000, "batchFlushInterval");
    this.clusteringFields = options.clusteringFields ?? ["event_type", "agent", "user_id"];
    this.customTags = options.customTags;
    for (const t of [...(options.eventAllowlist ?? []), ...(options.eventDenylist ?? [])]) {
      if (!(ANALYTICS_EVENT_TYPES as readonly string[]).includes(t))
        throw new ConfigurationError(
          `AnalyticsPlugin: unknown event type "${t}". Known: ${ANALYTICS_EVENT_TYPES.join(", ")}.`,
        );
    }
    const allowed = options.eventAllowlist ? new Set(options.eventAllowlist) : new Set(ANALYTICS_EVENT_TYPES);
    for (const t of options.eventDenylist ?? []) allowed.delete(t);
    this.types = allowed;
    this.maxContentLength = options.maxContentLength ?? 500;
    this.logMultiModal = options.logMultiModalContent ?? false;
    this.logSessionMetadata = options.logSessionMetadata ?? true;
    this.autoSchemaUpgrade = options.autoSchemaUpgrade ?? true;
    this.formatter = options.contentFormatter;
    this.retryInitialMs = parseDuration(options.retry?.initialDelay ?? 500, "retry.initialDelay");
    this.retryMaxMs = parseDuration(options.retry?.maxDelay ?? 10_000, "retry.maxDelay");
    this.maxAttempts = positiveInt(options.retry?.maxAttempts ?? 3, "retry.maxAttempts");
    this.maxQueueSize = positiveInt(options.maxQueueSize ?? 10_000, "maxQueueSize");
    this.closeTimeoutMs = parseDuration(options.closeTimeout ?? 5000, "closeTimeout");
    let reported = false;
    this.onError =
      options.onError ??
      ((error, info) => {
        if (reported) return;
        reported = true;
        process.stderr.write(
          `${this.name}: dropped ${info.droppedRows} analytics rows: ${(error as Error)?.message ?? String(error)} ` +
            `(further failures are not reported)\n`,
        );
      });
  }

  override onUserMessageCallback({
    invocationContext,
    userMessage,
  }: {
    invocationContext: InvocationContext;
    userMessage: Content;
  }): undefined {
    this.add(invocationContext, "USER_MESSAGE_RECEIVED", { content: userMessage });
    return undefined;
  }

  override beforeRunCallback({ invocationContext }: { invocationContext: InvocationContext }): undefined {
    this.started.set(`run/${invocationContext.invocationId}`, performance.now());
    this.add(invocationContext, "INVOCATION_STARTING", {
      agent: invocationContext.agent.name,
      attributes: this.sessionMetadata(invocationContext),
    });
    return undefined;
  }

  override afterRunCallback({ invocationContext }: { invocationContext: InvocationContext }): void {
    this.add(invocationContext, "INVOCATION_COMPLETED", {
      agent: invocationContext.agent.name,
      latencyMs: this.elapsed(`run/${invocationContext.invocationId}`),
      attributes: this.sessionMetadata(invocationContext),
    });
  }

  override onEventCallback({
    invocationContext,
    event,
  }: {
    invocationContext: InvocationContext;
    event: Event;
  }): undefined {
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

  override beforeAgentCallback({ agent, context }: { agent: BaseAgent; context: CallbackContext }): undefined {
    this.started.set(`agent/${context.invocationId}/${agent.name}`, performance.now());
    this.add(context.invocation, "AGENT_STARTING", { agent: agent.name });
    return undefined;
  }

  override afterAgentCallback({ agent, context }: { agent: BaseAgent; context: CallbackContext }): undefined {
    this.add(context.invocation, "AGENT_COMPLETED", {
      agent: agent.name,
      latencyMs: this.elapsed(`agent/${context.invocationId}/${agent.name}`),
    });
    return undefined;
  }

  override beforeModelCallback({ context, request }: { context: CallbackContext; request: LlmRequest }): undefined {
    this.started.set(`model/${context.invocationId}/${context.agentName}`, performance.now());
    this.add(context.invocation, "LLM_REQUEST", {
      agent: context.agentName,
      model: request.model ?? null,
      content: { systemInstruction: request.config.systemInstruction, contents: request.contents },
      attributes: { tools: Object.keys(request.toolsDict ?? {}) },
    });
    return undefined;
  }

  override afterModelCallback({ context, response }: { context: CallbackContext; response: LlmResponse }): undefined {
    if (response.partial) return undefined;
    this.add(context.invocation, response.errorCode ? "LLM_ERROR" : "LLM_RESPONSE", {
      agent: context.agentName,
      content: response.content ?? null,
      latencyMs: this.elapsed(`model/${context.invocationId}/${context.agentName}`),
      attributes: { usage: response.usageMetadata, finish_reason: response.finishReason },
      ...(response.errorCode ? { error: `${response.errorCode}: ${response.errorMessage ?? ""}` } : {}),
    });
    return undefined;
  }

  override onModelErrorCallback({
    context,
    request,
    error,
  }: {
    context: CallbackContext;
    request: LlmRequest;
    error: unknown;
  }): undefined {
    this.add(context.invocation, "LLM_ERROR", {
      agent: context.agentName,
      model: request.model ?? null,
      latencyMs: this.elapsed(`model/${context.invocationId}/${context.agentName}`),
      error: errorMessage(error),
    });
    return undefined;
  }

  override beforeToolCallback({
    tool,
    args,
    context,
  }: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
  }): undefined {
    this.started.set(`tool/${context.invocationId}/${context.functionCallId ?? tool.name}`, performance.now());
    this.add(context.invocation, "TOOL_STARTING", {
      agent: context.agentName,
      tool: tool.name,
      content: args,
      attributes: { call_id: context.functionCallId },
    });
    return undefined;
  }

  override afterToolCallback({
    tool,
    context,
    response,
  }: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    response: Record<string, unknown>;
  }): undefined {
    this.add(context.invocation, "TOOL_COMPLETED", {
      agent: context.agentName,
      tool: tool.name,
      content: response,
      latencyMs: this.elapsed(`tool/${context.invocationId}/${context.functionCallId ?? tool.name}`),
      attributes: { call_id: context.functionCallId },
    });
    return undefined;
  }

  override onToolErrorCallback({
    tool,
    context,
    error,
  }: {
    tool: BaseTool;
    args: Record<string, unknown>;
    context: ToolContext;
    error: unknown;
  }): undefined {
    this.add(context.invocation, "TOOL_ERROR", {
      agent: context.agentName,
      tool: tool.name,
      latencyMs: this.elapsed(`tool/${context.invocationId}/${context.functionCallId ?? tool.name}`),
      error: errorMessage(error),
      attributes: { call_id: context.functionCallId },
    });
    return undefined;
  }

  /** Writes every queued row now (waits for batches in flight too). */
  async flush(): Promise<void> {
    while (this.queue.length > 0) this.scheduleBatch();
    await this.writing;
  }

  /**
   * Flushes and closes the sink, waiting at most `closeTimeout` for each; past it the sink's
   * signal is aborted and the rows not written are counted in `droppedRows`. Never throws.
   */
  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    if (!(await settlesWithin(this.flush(), this.closeTimeoutMs))) {
      const left = this.queue.splice(0).length + this.pendingRows;
      this.gaveUp = true;
      this.droppedRows += left;
      this.report(
        new AnalyticsCloseTimeoutError(
          `AnalyticsPlugin: the sink did not finish writing within ${this.closeTimeoutMs} ms; ${left} row(s) given up.`,
        ),
        left,
      );
    }
    this.abort.abort(new AnalyticsCloseTimeoutError("AnalyticsPlugin closed."));
    let sinkClose: Promise<void>;
    try {
      sinkClose = Promise.resolve(this.sink.close());
    } catch (error) {
      sinkClose = Promise.reject(error as Error);
    }
    sinkClose.catch((error: unknown) => this.report(error, 0));
    if (!(await settlesWithin(sinkClose, this.closeTimeoutMs))) {
      this.report(
        new AnalyticsCloseTimeoutError(
          `AnalyticsPlugin: the sink's close() did not finish within ${this.closeTimeoutMs} ms.`,
        ),
        0,
      );
    }
  }

  /** Calls `onError`, which must never break the plugin either. */
  private report(error: unknown, droppedRows: number): void {
    try {
      this.onError(error, { droppedRows });
    } catch {
      // A failing error handler is ignored.
    }
  }

  private add(
    ctx: InvocationContext,
    type: AnalyticsEventType,
    data: {
      agent?: string;
      model?: string | null;
      tool?: string;
      content?: unknown;
      attributes?: Record<string, unknown>;
      latencyMs?: number | null;
      error?: string;
    },
  ): void {
    if (!this.enabled || this.closed || !this.types.has(type)) return;
    // Logging must never fail the run: a row that cannot be built (a throwing contentFormatter,
    // content that cannot be serialized) is dropped, counted and reported.
    let row: AnalyticsRow;
    try {
      row = this.buildRow(ctx, type, data);
    } catch (error) {
      this.droppedRows++;
      this.report(error, 1);
      return;
    }
    if (this.queue.length >= this.maxQueueSize) {
      this.queue.shift();
      this.droppedRows++;
    }
    this.queue.push(row);
    if (this.queue.length >= this.batchSize) this.scheduleBatch();
    else this.ensureTimer();
  }

  private buildRow(
    ctx: InvocationContext,
    type: AnalyticsEventType,
    data: {
      agent?: string;
      model?: string | null;
      tool?: string;
      content?: unknown;
      attributes?: Record<string, unknown>;
      latencyMs?: number | null;
      error?: string;
    },
  ): AnalyticsRow {
    const { text, truncated } = this.formatContent(data.content, type);
    const attributes = { ...(data.attributes ?? {}), ...(this.customTags ? { custom_tags: this.customTags } : {}) };
    const cleaned = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined));
    return {
      timestamp: new Date().toISOString(),
      event_type: type,
      app_name: ctx.appName,
      agent: data.agent ?? null,
      session_id: ctx.session.id,
      invocation_id: ctx.invocationId,
      user_id: ctx.userId,
      model: data.model ?? null,
      tool_name: data.tool ?? null,
      content: text,
      attributes: Object.keys(cleaned).length ? safeStringify(cleaned) : null,
      latency_ms: data.latencyMs ?? null,
      status: data.error ? "ERROR" : "OK",
      error_message: data.error ?? null,
      is_truncated: truncated,
    };
  }

  private ensureTimer(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(
      () => {
        if (this.queue.length > 0) this.scheduleBatch();
      },
      Math.max(1, this.flushIntervalMs),
    );
    this.timer.unref();
  }

  /** Takes one batch off the queue and chains its write after the previous ones. */
  private scheduleBatch(): void {
    const batch = this.queue.splice(0, this.batchSize);
    if (batch.length === 0) return;
    this.pendingRows += batch.length;
    this.writing = this.writing.then(async () => {
      try {
        await this.writeWithRetries(batch);
      } finally {
        this.pendingRows -= batch.length;
      }
    });
  }

  private async writeWithRetries(batch: AnalyticsRow[]): Promise<void> {
    try {
      await retry(
        async () => {
          // Closed past its timeout: these rows were counted as dropped and reported then.
          if (this.gaveUp) return;
          await this.ensurePrepared();
          await this.sink.writeRows(batch, this.abort.signal);
          if (!this.gaveUp) this.writtenRows += batch.length;
        },
        {
          policy: {
            maxAttempts: this.maxAttempts,
            initialDelayMs: this.retryInitialMs,
            maxDelayMs: this.retryMaxMs,
            jitter: 0,
          },
          decide: () => ({ retry: !this.gaveUp }),
        },
      );
    } catch (error) {
      if (this.gaveUp) return;
      this.droppedRows += batch.length;
      this.report(error, batch.length);
    }
  }

  /** Prepares the sink once; a failed prepare is tried again by the next attempt. */
  private ensurePrepared(): Promise<void> {
    this.prepared ??= (
      this.sink.prepare?.({
        autoSchemaUpgrade: this.autoSchemaUpgrade,
        clusteringFields: this.clusteringFields,
        signal: this.abort.signal,
      }) ?? Promise.resolve()
    ).catch((error: unknown) => {
      this.prepared = undefined;
      throw error;
    });
    return this.prepared;
  }

  private formatContent(content: unknown, type: AnalyticsEventType): { text: string | null; truncated: boolean } {
    if (content === undefined || content === null) return { text: null, truncated: false };
    let value = this.logMultiModal ? content : stripBinary(content);
    if (this.formatter) value = this.formatter(value, type);
    if (value === undefined || value === null) return { text: null, truncated: false };
    let text = typeof value === "string" ? value : safeStringify(value);
    if (isContent(value)) {
      const plain = getTextOf(value);
      if (plain && (value.parts ?? []).every((p) => typeof p.text === "string")) text = plain;
    }
    if (this.maxContentLength > 0 && text.length > this.maxContentLength)
      return { text: text.slice(0, this.maxContentLength), truncated: true };
    return { text, truncated: false };
  }

  private sessionMetadata(ctx: InvocationContext): Record<string, unknown> | undefined {
    if (!this.logSessionMetadata) return undefined;
    return {
      session_metadata: {
        state: ctx.session.state,
        last_update_time: ctx.session.lastUpdateTime,
        events: ctx.session.events.length,
      },
    };
  }

  private elapsed(key: string): number | null {
    const start = this.started.get(key);
    if (start === undefined) return null;
    this.started.delete(key);
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
