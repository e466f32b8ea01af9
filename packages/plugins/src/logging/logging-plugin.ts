import {
  BasePlugin,
  FAILOVER_METADATA_KEY,
  getFunctionCalls,
  getFunctionResponses,
  getSystemInstructionText,
  getTextOf,
  MODEL_METADATA_KEY,
  USAGE_METADATA_KEY,
  type Content,
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
import { preview, truncate } from "./truncate.js";

/** One structured log record: which lifecycle point, for which run, and what happened. */
export interface LogRecord {
  /** The lifecycle point, e.g. `before_model`, `tool_error`. */
  point: LogPoint;
  time: Date;
  appName: string;
  userId: string;
  sessionId: string;
  invocationId: string;
  agentName?: string;
  /** What is worth knowing at this point (content already truncated). */
  fields: Record<string, unknown>;
}

export type LogPoint =
  | "user_message"
  | "run_start"
  | "event"
  | "run_end"
  | "agent_start"
  | "agent_end"
  | "before_model"
  | "after_model"
  | "model_error"
  | "before_tool"
  | "after_tool"
  | "tool_error";

export interface LoggingPluginOptions {
  /** Plugin name (default `logging_plugin`). */
  name?: string;
  /** Where records go. Default: one line each to `write` in `format`. */
  sink?: (record: LogRecord) => void;
  /** Line format of the default sink: readable `text` (default) or one JSON object per line. */
  format?: "text" | "json";
  /** Line writer of the default sink (default: `console.log`). */
  write?: (line: string) => void;
  /** Log message texts, arguments and results (default true); false keeps only sizes and names. */
  includeContent?: boolean;
  /** Cut each logged text or JSON value to this many characters (default 500; 0 = no limit). */
  maxContentLength?: number;
}

/**
 * Logs every lifecycle point of a run (user message, run, agent, model, tool, event, errors),
 * readable by default and structured on request. It never changes the run: every hook
 * returns nothing, and a failing sink is reported once to stderr instead of failing the run.
 */
export class LoggingPlugin extends BasePlugin {
  private readonly sink: (record: LogRecord) => void;
  private readonly includeContent: boolean;
  private readonly max: number;
  private sinkFailed = false;

  constructor(options: LoggingPluginOptions = {}) {
    super(options.name ?? "logging_plugin");
    this.includeContent = options.includeContent ?? true;
    this.max = options.maxContentLength ?? 500;
    const write = options.write ?? ((line: string) => console.log(line));
    const format = options.format ?? "text";
    this.sink =
      options.sink ?? ((record) => write(format === "json" ? formatJson(record) : formatText(record, this.name)));
  }

  /** `before_model` logs the contents' count and the last one's text: the history is read, not copied. */
  override get readsContentsOnly(): boolean {
    return true;
  }

  override onUserMessageCallback({ invocationContext, userMessage }: UserMessageHookArgs): undefined {
    this.log("user_message", invocationContext, undefined, { content: this.content(userMessage) });
    return undefined;
  }

  override beforeRunCallback({ invocationContext }: BeforeRunHookArgs): undefined {
    this.log("run_start", invocationContext, invocationContext.agent.name, { rootAgent: invocationContext.agent.name });
    return undefined;
  }

  override onEventCallback({ invocationContext, event }: EventHookArgs): undefined {
    const fields: Record<string, unknown> = { eventId: event.id, author: event.author };
    if (event.partial) fields.partial = true;
    const text = getTextOf(event.content);
    if (text) fields.text = this.text(text);
    const calls = getFunctionCalls(event);
    if (calls.length) fields.functionCalls = calls.map((c) => c.name);
    const responses = getFunctionResponses(event);
    if (responses.length) fields.functionResponses = responses.map((r) => r.name);
    if (event.actions.stateDelta && Object.keys(event.actions.stateDelta).length)
      fields.stateDelta = this.value(event.actions.stateDelta);
    if (event.actions.artifactDelta && Object.keys(event.actions.artifactDelta).length)
      fields.artifactDelta = event.actions.artifactDelta;
    if (event.actions.transferToAgent) fields.transferToAgent = event.actions.transferToAgent;
    if (event.actions.escalate) fields.escalate = true;
    if (event.longRunningToolIds?.length) fields.longRunningToolIds = event.longRunningToolIds;
    if (event.errorCode || event.errorMessage)
      Object.assign(fields, { errorCode: event.errorCode, errorMessage: event.errorMessage });
    if (event.usageMetadata) fields.usage = event.usageMetadata;
    if (event.customMetadata?.[USAGE_METADATA_KEY]) fields.usageRollup = event.customMetadata[USAGE_METADATA_KEY];
    this.log("event", invocationContext, event.author, fields);
    return undefined;
  }

  override afterRunCallback({ invocationContext }: AfterRunHookArgs): void {
    this.log("run_end", invocationContext, invocationContext.agent.name, {});
  }

  override beforeAgentCallback({ agent, context }: AgentHookArgs): undefined {
    this.log("agent_start", context.invocation, agent.name, { branch: context.invocation.branch });
    return undefined;
  }

  override afterAgentCallback({ agent, context }: AgentHookArgs): undefined {
    this.log("agent_end", context.invocation, agent.name, {});
    return undefined;
  }

  override beforeModelCallback({ context, request }: BeforeModelHookArgs): undefined {
    const fields: Record<string, unknown> = {
      model: request.model,
      contents: request.contents.length,
      tools: Object.keys(request.toolsDict ?? {}),
    };
    const system = getSystemInstructionText(request);
    if (system) fields.systemInstruction = this.text(system);
    const last = request.contents.at(-1);
    if (last) fields.lastContent = this.content(last);
    this.log("before_model", context.invocation, context.agentName, fields);
    return undefined;
  }

  override afterModelCallback({ context, response }: AfterModelHookArgs): undefined {
    const fields: Record<string, unknown> = {};
    if (response.partial) fields.partial = true;
    if (response.content) fields.content = this.content(response.content);
    if (response.finishReason) fields.finishReason = response.finishReason;
    // Which model answered (a FallbackModel names it) and the ones it gave up on first.
    const answeredBy = response.customMetadata?.[MODEL_METADATA_KEY] ?? response.modelVersion;
    if (answeredBy !== undefined) fields.model = answeredBy;
    if (response.customMetadata?.[FAILOVER_METADATA_KEY])
      fields.failover = response.customMetadata[FAILOVER_METADATA_KEY];
    if (response.usageMetadata) fields.usage = response.usageMetadata;
    if (response.errorCode || response.errorMessage)
      Object.assign(fields, { errorCode: response.errorCode, errorMessage: response.errorMessage });
    this.log("after_model", context.invocation, context.agentName, fields);
    return undefined;
  }

  override onModelErrorCallback({ context, error }: ModelErrorHookArgs): undefined {
    this.log("model_error", context.invocation, context.agentName, errorFields(error));
    return undefined;
  }

  override beforeToolCallback({ tool, args, context }: BeforeToolHookArgs): undefined {
    this.log("before_tool", context.invocation, context.agentName, {
      tool: tool.name,
      callId: context.functionCallId,
      args: this.value(args),
    });
    return undefined;
  }

  override afterToolCallback({ tool, context, response }: AfterToolHookArgs): undefined {
    this.log("after_tool", context.invocation, context.agentName, {
      tool: tool.name,
      callId: context.functionCallId,
      response: this.value(response),
    });
    return undefined;
  }

  override onToolErrorCallback({ tool, context, error }: ToolErrorHookArgs): undefined {
    this.log("tool_error", context.invocation, context.agentName, {
      tool: tool.name,
      callId: context.functionCallId,
      ...errorFields(error),
    });
    return undefined;
  }

  private log(
    point: LogPoint,
    ctx: InvocationContext,
    agentName: string | undefined,
    fields: Record<string, unknown>,
  ): void {
    const record: LogRecord = {
      point,
      time: new Date(),
      appName: ctx.appName,
      userId: ctx.userId,
      sessionId: ctx.session.id,
      invocationId: ctx.invocationId,
      ...(agentName ? { agentName } : {}),
      fields,
    };
    try {
      this.sink(record);
    } catch (error) {
      if (!this.sinkFailed) {
        this.sinkFailed = true;
        process.stderr.write(
          `${this.name}: the log sink failed (${(error as Error).message}); further sink errors are not reported.\n`,
        );
      }
    }
  }

  private text(text: string): string {
    return this.includeContent ? truncate(text, this.max) : `[${text.length} chars]`;
  }

  private value(value: unknown): unknown {
    if (!this.includeContent) return "[hidden]";
    return preview(value, this.max);
  }

  /** A content as a short description of its parts. */
  private content(content: Content): string {
    const parts = (content.parts ?? []).map((part) => {
      if (typeof part.text === "string")
        return part.thought
          ? `thought(${this.text(part.text)})`
          : this.includeContent
            ? JSON.stringify(truncate(part.text, this.max))
            : `text[${part.text.length} chars]`;
      if (part.functionCall)
        return `call ${part.functionCall.name}(${this.includeContent ? preview(part.functionCall.args ?? {}, this.max) : "…"})`;
      if (part.functionResponse)
        return `response ${part.functionResponse.name}(${this.includeContent ? preview(part.functionResponse.response ?? {}, this.max) : "…"})`;
      if (part.inlineData)
        return (
          `inline ${part.inlineData.mimeType ?? "?"} ` +
          `(${Math.floor(((part.inlineData.data?.length ?? 0) * 3) / 4)} bytes)`
        );
      if (part.fileData) return `file ${part.fileData.fileUri ?? ""}`;
      if (part.executableCode) return `code ${this.text(part.executableCode.code ?? "")}`;
      if (part.codeExecutionResult) return `code result ${part.codeExecutionResult.outcome ?? ""}`;
      return "part";
    });
    return `${content.role ?? "?"}: ${parts.join(" | ")}`;
  }
}

function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error)
    return {
      error: error.message,
      errorType: error.name,
      ...("code" in error ? { errorCode: (error as { code: unknown }).code } : {}),
    };
  return { error: String(error) };
}

function formatText(record: LogRecord, name: string): string {
  const head = `[${name}] ${record.point.toUpperCase().replace("_", " ")}`;
  const where =
    `app=${record.appName} session=${record.sessionId} ` +
    `invocation=${record.invocationId}${record.agentName ? ` agent=${record.agentName}` : ""}`;
  const fields = Object.entries(record.fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
  return fields ? `${head} ${where} ${fields}` : `${head} ${where}`;
}

function formatJson(record: LogRecord): string {
  return JSON.stringify({ ...record, time: record.time.toISOString() });
}
