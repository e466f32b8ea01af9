import { errorType } from "./error-type.js";
import {
  BasePlugin,
  type BaseAgent,
  type CallbackContext,
  type Content,
  type LlmRequest,
  type ToolContext,
  type BeforeRunHookArgs,
  type AfterRunHookArgs,
  type AgentHookArgs,
  type BeforeModelHookArgs,
  type AfterModelHookArgs,
  type ModelErrorHookArgs,
  type BeforeToolHookArgs,
  type AfterToolHookArgs,
  type ToolErrorHookArgs,
} from "@agentkit/core";
import { BoundedLru, isLentHistory } from "@agentkit/core/internal";
import type { Context, Span, Tracer } from "@opentelemetry/api";
import { LazySpanAttributes } from "./lazy-span-attributes.js";
import { firstContents, materializeContents, RequestContentsLog, type ContentsNode } from "./request-contents-log.js";
import { GEN_AI_SYSTEM, TraceAttr } from "./trace-attributes.js";
import { DEFAULT_MAX_ATTRIBUTE_CHARS, headChars, toJsonString, truncatedJson } from "./trace-json.js";

interface InvocationSpans {
  root: Span;
  sessionId: string;
  /** The invocation's user, on every span: the debug routes show a user only its own traces. */
  userId: string;
  /** Open `invoke_agent` spans by agent name (a stack: a loop may re-enter an agent). */
  agents: Map<string, Span[]>;
  /** Open `call_llm` spans by agent name (one model call at a time per agent). */
  models: Map<string, Span>;
  /** Open `execute_tool` spans by function call id. */
  tools: Map<string, Span>;
}

/** A tracer, or a function that provides one on first use (so OpenTelemetry loads only when a run starts). */
export type TracerSource = Tracer | (() => Promise<Tracer>);

/** `SpanStatusCode.ERROR` of @opentelemetry/api (a stable wire value; not imported, to keep start-up light). */
const STATUS_ERROR = 2;

/** The two @opentelemetry/api members the plugin needs at run time, loaded with the tracer. */
interface OtelApi {
  ROOT_CONTEXT: Context;
  trace: { setSpan(context: Context, span: Span): Context };
}

/**
 * Records one trace per invocation with ADK's span names and attributes: `invocation` (root),
 * `invoke_agent <name>` under its parent agent's span, `call_llm` and `execute_tool <name>`
 * under their agent's span. Spans are keyed by invocation id, agent name and call id, never by
 * "current span", so parallel tools, parallel agents and concurrent runs nest correctly.
 * One instance may serve many runners; closing a runner does not close it.
 */
export class TracingPlugin extends BasePlugin {
  private readonly source: TracerSource;
  private readonly maxAttributeChars: number;
  /** Prompt and response content in spans (model requests and responses, tool arguments and results). */
  private readonly captureContent: boolean;
  /** Where model requests' attributes wait until a trace is read (shared with the trace store). */
  readonly lazyAttributes: LazySpanAttributes;
  private readonly requestLog = new RequestContentsLog();
  /** Each conversation key's last request config and its JSON: an equal config is kept once. */
  private readonly lastConfigs = new BoundedLru<{ json: string; config: Record<string, unknown> }>({
    maxEntries: 1024,
  });
  private readonly invocations = new Map<string, InvocationSpans>();
  private loading: Promise<void> | undefined;
  // Set by `load()` before the first invocation is recorded; every other hook acts only on recorded invocations.
  private tracer!: Tracer;
  private otel!: OtelApi;

  constructor(
    tracer: TracerSource,
    options: {
      name?: string;
      maxAttributeChars?: number;
      /** Record prompts, responses and tool payloads (default true). Off: spans carry only ids, names, usage and status. */
      captureContent?: boolean;
      /** The lazy-attribute registry to fill (the trace store's); one of its own when absent. */
      lazyAttributes?: LazySpanAttributes;
    } = {},
  ) {
    super(options.name ?? "agentkit_tracing");
    this.source = tracer;
    this.maxAttributeChars = options.maxAttributeChars ?? DEFAULT_MAX_ATTRIBUTE_CHARS;
    this.captureContent = options.captureContent ?? true;
    this.lazyAttributes = options.lazyAttributes ?? new LazySpanAttributes();
  }

  /**
   * The request's contents are read, never edited: the log keeps the frozen contents, and the
   * array itself only when it is the session's lent history, which the flow only appends to
   * (`RequestContentsLog`). So a traced model call costs what is new in its request, not a copy
   * of the history.
   */
  override get readsContentsOnly(): boolean {
    return true;
  }

  /** Loads @opentelemetry/api (and the tracer, when given as a function) once. */
  private load(): Promise<void> {
    this.loading ??= (async () => {
      // In sequence: the tracer's source imports the SDK, which loads @opentelemetry/api too
      // (see createTraceRecorder on linking one module graph from two dynamic imports at once).
      const tracer = typeof this.source === "function" ? await this.source() : this.source;
      const api = await import("@opentelemetry/api");
      this.otel = { ROOT_CONTEXT: api.ROOT_CONTEXT, trace: api.trace };
      this.tracer = tracer;
    })();
    return this.loading;
  }

  private json(value: unknown): string {
    return toJsonString(value, this.maxAttributeChars);
  }

  override async beforeRunCallback({ invocationContext }: BeforeRunHookArgs): Promise<undefined> {
    await this.load();
    const sessionId = invocationContext.session.id;
    const userId = invocationContext.session.userId;
    const root = this.tracer.startSpan(
      "invocation",
      {
        attributes: {
          [TraceAttr.invocationId]: invocationContext.invocationId,
          [TraceAttr.sessionId]: sessionId,
          [TraceAttr.userId]: userId,
        },
      },
      this.otel.ROOT_CONTEXT,
    );
    this.invocations.set(invocationContext.invocationId, {
      root,
      sessionId,
      userId,
      agents: new Map(),
      models: new Map(),
      tools: new Map(),
    });
    return undefined;
  }

  override afterRunCallback({ invocationContext, error }: AfterRunHookArgs): void {
    const spans = this.invocations.get(invocationContext.invocationId);
    if (!spans) return;
    this.invocations.delete(invocationContext.invocationId);
    // A run that threw: its code or class only (a message may quote what the model or a tool saw).
    if (error !== undefined) spans.root.setStatus({ code: STATUS_ERROR, message: errorType(error) });
    // Whatever an error or an early stop left open ends with the invocation, innermost first.
    for (const span of spans.tools.values()) endUnfinished(span);
    for (const span of spans.models.values()) endUnfinished(span);
    for (const stack of spans.agents.values()) for (const span of stack.reverse()) endUnfinished(span);
    spans.root.end();
  }

  override beforeAgentCallback({ agent, context }: AgentHookArgs): undefined {
    const spans = this.invocations.get(context.invocationId);
    if (!spans) return undefined;
    const span = this.tracer.startSpan(
      `invoke_agent ${agent.name}`,
      {
        attributes: {
          [TraceAttr.operationName]: "invoke_agent",
          [TraceAttr.agentName]: agent.name,
          [TraceAttr.agentDescription]: agent.description,
          [TraceAttr.conversationId]: spans.sessionId,
          [TraceAttr.invocationId]: context.invocationId,
          [TraceAttr.userId]: spans.userId,
        },
      },
      this.otel.trace.setSpan(this.otel.ROOT_CONTEXT, this.parentOfAgent(spans, agent)),
    );
    const stack = spans.agents.get(agent.name) ?? [];
    stack.push(span);
    spans.agents.set(agent.name, stack);
    return undefined;
  }

  override afterAgentCallback({ agent, context }: AgentHookArgs): undefined {
    const spans = this.invocations.get(context.invocationId);
    const span = spans?.agents.get(agent.name)?.pop();
    if (!spans || !span) return undefined;
    const model = spans.models.get(agent.name);
    if (model) {
      spans.models.delete(agent.name);
      endUnfinished(model);
    }
    span.end();
    return undefined;
  }

  override beforeModelCallback({ context, request }: BeforeModelHookArgs): undefined {
    const spans = this.invocations.get(context.invocationId);
    if (!spans) return undefined;
    const stale = spans.models.get(context.agentName);
    // A model call skipped by a later before-model callback never reached after-model.
    if (stale) endUnfinished(stale);
    const span = this.tracer.startSpan(
      "call_llm",
      {
        attributes: {
          [TraceAttr.operationName]: "generate_content",
          [TraceAttr.system]: GEN_AI_SYSTEM,
          [TraceAttr.requestModel]: request.model ?? modelNameOf(context),
          [TraceAttr.agentName]: context.agentName,
          [TraceAttr.invocationId]: context.invocationId,
          [TraceAttr.sessionId]: spans.sessionId,
          [TraceAttr.userId]: spans.userId,
          // Filled in after-model; a string from the start so every generate_content span is valid.
          [TraceAttr.eventId]: "",
        },
      },
      this.otel.trace.setSpan(this.otel.ROOT_CONTEXT, this.agentSpan(spans, context.agentName)),
    );
    if (this.captureContent) this.recordRequest(span, spans.sessionId, context, request);
    spans.models.set(context.agentName, span);
    return undefined;
  }

  override afterModelCallback({ context, response }: AfterModelHookArgs): undefined {
    const spans = this.invocations.get(context.invocationId);
    const span = spans?.models.get(context.agentName);
    if (!spans || !span) return undefined;
    // Streamed chunks: the span describes the complete response, which comes last.
    if (response.partial) return undefined;
    spans.models.delete(context.agentName);
    if (context.modelResponseEventId) span.setAttribute(TraceAttr.eventId, context.modelResponseEventId);
    if (this.captureContent) span.setAttribute(TraceAttr.llmResponse, this.json(response));
    const usage = response.usageMetadata;
    if (usage?.promptTokenCount !== undefined) span.setAttribute(TraceAttr.inputTokens, usage.promptTokenCount);
    if (usage?.candidatesTokenCount !== undefined)
      span.setAttribute(TraceAttr.outputTokens, usage.candidatesTokenCount);
    if (response.finishReason) span.setAttribute(TraceAttr.finishReasons, [String(response.finishReason)]);
    if (response.errorCode)
      span.setStatus({ code: STATUS_ERROR, message: response.errorMessage ?? response.errorCode });
    span.end();
    return undefined;
  }

  override onModelErrorCallback({ context, error }: ModelErrorHookArgs): undefined {
    const span = this.invocations.get(context.invocationId)?.models.get(context.agentName);
    span?.setStatus({ code: STATUS_ERROR, message: error instanceof Error ? error.message : String(error) });
    return undefined;
  }

  override beforeToolCallback({ tool, args, context }: BeforeToolHookArgs): undefined {
    const spans = this.invocations.get(context.invocationId);
    if (!spans) return undefined;
    const callId = context.functionCallId ?? "";
    const span = this.tracer.startSpan(
      `execute_tool ${tool.name}`,
      {
        attributes: {
          [TraceAttr.operationName]: "execute_tool",
          [TraceAttr.toolName]: tool.name,
          [TraceAttr.toolDescription]: tool.description,
          [TraceAttr.toolType]: tool.constructor.name,
          [TraceAttr.toolCallId]: callId,
          ...(this.captureContent ? { [TraceAttr.toolCallArgs]: this.json(args) } : {}),
          [TraceAttr.invocationId]: context.invocationId,
          [TraceAttr.sessionId]: spans.sessionId,
          [TraceAttr.userId]: spans.userId,
        },
      },
      this.otel.trace.setSpan(this.otel.ROOT_CONTEXT, this.agentSpan(spans, context.agentName)),
    );
    spans.tools.get(callId)?.end();
    spans.tools.set(callId, span);
    return undefined;
  }

  override afterToolCallback({ context, response }: AfterToolHookArgs): undefined {
    const span = this.takeToolSpan(context);
    if (!span) return undefined;
    if (this.captureContent) span.setAttribute(TraceAttr.toolResponse, this.json(response));
    span.end();
    return undefined;
  }

  override onToolErrorCallback({ context, error }: ToolErrorHookArgs): undefined {
    const span = this.takeToolSpan(context);
    if (!span) return undefined;
    const message = error instanceof Error ? error.message : String(error);
    if (this.captureContent) span.setAttribute(TraceAttr.toolResponse, this.json({ error: message }));
    span.setStatus({ code: STATUS_ERROR, message });
    span.end();
    return undefined;
  }

  /** The plugin holds no resources of its own; the recorder that made it owns the provider. */
  override async close(): Promise<void> {}

  /**
   * The request attribute costs only what is new in this request: its contents are recorded as a
   * chain node sharing the conversation's earlier contents, and the JSON is written when a trace
   * is read (the same text the eager form had). Model and config are small and captured now.
   */
  private recordRequest(span: Span, sessionId: string, context: CallbackContext, request: LlmRequest): void {
    const key = JSON.stringify([sessionId, context.invocation.branch ?? "", context.agentName]);
    const node = this.requestLog.record(key, request.contents, isLentHistory(request.contents));
    const { abortSignal: _signal, ...own } = request.config as Record<string, unknown>;
    const config = this.sharedConfig(key, own);
    const model = request.model;
    // About what this request adds to the recorded conversation (for the store's byte budget).
    this.lazyAttributes.set(
      span.spanContext().spanId,
      TraceAttr.llmRequest,
      new RequestAttribute(model, config, node, this.maxAttributeChars),
      node.addedJsonLength + 512,
    );
  }

  /**
   * `config`, or the key's previous config when it is equal (the same JSON): a conversation's
   * requests usually repeat their instruction and tool declarations, rebuilt for each call, and
   * a trace would otherwise keep one copy per model call.
   */
  private sharedConfig(key: string, config: Record<string, unknown>): Record<string, unknown> {
    let json: string;
    try {
      json = JSON.stringify(config);
    } catch {
      return config; // Not JSON (a cycle, a bigint): kept as it is, written with care on read.
    }
    const last = this.lastConfigs.get(key);
    if (last?.json === json) return last.config;
    this.lastConfigs.set(key, { json, config });
    return config;
  }

  private takeToolSpan(context: ToolContext): Span | undefined {
    const spans = this.invocations.get(context.invocationId);
    const callId = context.functionCallId ?? "";
    const span = spans?.tools.get(callId);
    if (span) spans?.tools.delete(callId);
    return span;
  }

  private agentSpan(spans: InvocationSpans, agentName: string): Span {
    const stack = spans.agents.get(agentName);
    return stack?.[stack.length - 1] ?? spans.root;
  }

  /** The nearest ancestor agent with an open span (its transfer or workflow runs this one). */
  private parentOfAgent(spans: InvocationSpans, agent: BaseAgent): Span {
    for (let parent = agent.parentAgent; parent; parent = parent.parentAgent) {
      const stack = spans.agents.get(parent.name);
      const open = stack?.[stack.length - 1];
      if (open) return open;
    }
    return spans.root;
  }
}

function endUnfinished(span: Span): void {
  span.setStatus({ code: STATUS_ERROR, message: "unfinished: the call was skipped or the run stopped" });
  span.end();
}

function modelNameOf(context: CallbackContext): string {
  const agent = context.invocation.agent as { model?: unknown };
  if (typeof agent.model === "string") return agent.model;
  const model = agent.model as { model?: unknown } | undefined;
  return typeof model?.model === "string" ? model.model : "";
}

/** A model request's attribute until a trace is read: what it needs to write it, in one record (kept per model call). */
class RequestAttribute {
  constructor(
    private readonly model: string | undefined,
    private readonly config: Record<string, unknown>,
    private readonly node: ContentsNode,
    private readonly maxAttributeChars: number,
  ) {}

  write(maxChars: number): string {
    return requestJson(this.model, this.config, this.node, Math.min(maxChars, this.maxAttributeChars));
  }
}

/**
 * The request attribute's text, as `toJsonString({ model, config, contents }, maxChars)` writes
 * it. Over `maxChars` that is a head of the text with the whole text's length: the length comes
 * from the recorded node and the head from the first contents only, so a session's span list
 * (4,096 characters a request) costs what it shows, not every request's whole conversation.
 */
function requestJson(
  model: string | undefined,
  config: Record<string, unknown>,
  node: ContentsNode,
  maxChars: number,
): string {
  const open = `${leadJson(model, config).slice(0, -1)},"contents":`;
  const length = open.length + node.jsonLength + 1;
  if (length <= maxChars) return toJsonString({ model, config, contents: materializeContents(node) }, maxChars);
  const wanted = headChars(maxChars);
  let head = `${open}[`;
  let written = 0;
  // Contents are written one by one until the head is long enough, each once: a session's span
  // list writes a head for every request in it. They are fetched a few first, more only when
  // they are short (a chain node is walked to find them).
  for (let count = 8; head.length < wanted && written < node.length; count *= 4) {
    const contents = firstContents(node, count);
    for (; written < contents.length && head.length < wanted; written++)
      head += `${written > 0 ? "," : ""}${contentJson(contents[written]!)}`;
  }
  return truncatedJson(length, head, maxChars);
}

/**
 * A content's JSON, written once per content object: the recorded contents are frozen snapshots
 * shared by every request of a conversation, so every head in a session's span list starts with
 * the same ones. Held as long as the content is (weakly).
 */
const contentTexts = new WeakMap<Content, string>();

function contentJson(content: Content): string {
  let json = contentTexts.get(content);
  if (json === undefined) {
    json = toJsonString(content, Number.POSITIVE_INFINITY);
    // Only a frozen content cannot change after it was written.
    if (Object.isFrozen(content)) contentTexts.set(content, json);
  }
  return json;
}

/** `{ model, config }` as JSON, written once per config object (a conversation's requests share an equal config). */
const leads = new WeakMap<object, { model: string | undefined; json: string }>();

function leadJson(model: string | undefined, config: Record<string, unknown>): string {
  const known = leads.get(config);
  if (known && known.model === model) return known.json;
  const json = toJsonString({ model, config }, Number.POSITIVE_INFINITY);
  leads.set(config, { model, json });
  return json;
}
