import type { AIMessage, AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  BaseLlm,
  ConfigurationError,
  type GenerateContentOptions,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { underCallSignal } from "../call-signal.js";
import { CallObserver } from "../framework/call-observer.js";
import { ConversionIssues } from "../framework/conversion-issues.js";
import {
  effectiveSampling,
  parseFrameworkOptions,
  type FrameworkOptions,
  type FrameworkSettings,
  type SamplingSettings,
} from "../framework/framework-options.js";
import {
  builtInToolsOf,
  functionCallingChoice,
  functionDeclarationsOf,
  parametersOf,
  responseSchemaOf,
} from "../framework/json-schema.js";
import { toProviderError } from "./error-mapping.js";
import { toLangChainMessages } from "./message-conversion.js";
import { fromAiMessage, textsOf } from "./response-conversion.js";

export interface LangChainModelOptions extends FrameworkOptions {
  /** The wrapped LangChain chat model (set its own `maxRetries: 0`: agentkit's retry layer retries). */
  model: BaseChatModel;
  /** agentkit name of the model (default: `langchain/<llmType>`). */
  name?: string;
}

const ADAPTER = "LangChainModel";
type Invocable = Pick<BaseChatModel, "invoke" | "stream">;
type StructuredRunnable = {
  invoke(input: BaseMessage[], options?: { signal?: AbortSignal }): Promise<{ raw: AIMessage; parsed: unknown }>;
};

/**
 * Wraps any `@langchain/core` chat model as an agentkit model. Sampling properties
 * (temperature, maxTokens, topK, topP; the request's generation config wins) are applied to a
 * copy of the chat model built from its constructor fields (`lc_kwargs`), since LangChain
 * integrations read them from the instance rather than from call options. Tools go through
 * `bindTools` (with `tool_choice`), a response schema through `withStructuredOutput`.
 */
export class LangChainModel extends BaseLlm {
  readonly chatModel: BaseChatModel;
  private readonly settings: FrameworkSettings;
  private readonly provider: string;
  private readonly derived = new Map<string, BaseChatModel>();

  constructor(options: LangChainModelOptions) {
    const chatModel = options?.model as BaseChatModel | undefined;
    if (!chatModel || typeof chatModel.invoke !== "function" || typeof chatModel.stream !== "function") {
      throw new ConfigurationError(
        "LangChainModel needs `model`: a LangChain chat model (e.g. new ChatOpenAI({ ... })).",
      );
    }
    const settings = parseFrameworkOptions(ADAPTER, options);
    const llmType = typeof chatModel._llmType === "function" ? chatModel._llmType() : "langchain";
    super({ model: options.name ?? `langchain/${llmType}` });
    this.chatModel = chatModel;
    this.settings = settings;
    this.provider = llmType;
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream = false,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    // Hand-built requests may omit `config` (createLlmRequest always sets it).
    if (request.config === undefined) request = { ...request, config: {} };
    const observer = new CallObserver(this.settings, ADAPTER, this.model, stream, request);
    const issues = new ConversionIssues(ADAPTER, this.settings.validation);
    observer.setIssues(issues.list);
    // The caller's signal and the request's own abortSignal both cancel the call.
    yield* underCallSignal(options.signal, request.config.abortSignal, (signal) =>
      observer.observe(() => this.call(request, stream, signal, issues)),
    );
  }

  private async *call(
    request: LlmRequest,
    stream: boolean,
    signal: AbortSignal | undefined,
    issues: ConversionIssues,
  ): AsyncGenerator<LlmResponse, void, void> {
    const messages = toLangChainMessages(request, issues);
    const chatModel = this.withSampling(effectiveSampling(this.settings, request.config));
    const schema = responseSchemaOf(request);
    const hasTools = functionDeclarationsOf(request).length > 0;
    if (schema !== undefined && hasTools) {
      issues.report(
        "config.responseJsonSchema",
        "a response schema together with tools is not supported (agents use the set_model_response tool for that); " +
          "the schema is ignored",
      );
    }
    const runnable = schema !== undefined && !hasTools ? undefined : this.withTools(chatModel, request);
    for (const tool of builtInToolsOf(request)) {
      issues.report(
        `config.tools[${tool.index}]`,
        `the built-in tool "${tool.name}" has no LangChain counterpart (only function declarations are bound)`,
      );
    }
    issues.settle();
    const callOptions = signal === undefined ? {} : { signal };
    if (runnable === undefined) yield* this.structuredCall(chatModel, schema!, messages, callOptions, issues, signal);
    else if (stream) yield* this.streamCall(runnable, messages, callOptions, issues, signal);
    else yield* this.invokeCall(runnable, messages, callOptions, issues, signal);
  }

  private async *invokeCall(
    runnable: Invocable,
    messages: BaseMessage[],
    callOptions: { signal?: AbortSignal },
    issues: ConversionIssues,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse, void, void> {
    let result: AIMessage;
    try {
      result = (await runnable.invoke(messages, callOptions)) as AIMessage;
    } catch (error) {
      throw toProviderError(error, this.provider, signal);
    }
    yield fromAiMessage(result, issues);
  }

  /** Partials per text / reasoning chunk; tool-call chunks are assembled by `AIMessageChunk.concat`. */
  private async *streamCall(
    runnable: Invocable,
    messages: BaseMessage[],
    callOptions: { signal?: AbortSignal },
    issues: ConversionIssues,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse, void, void> {
    let full: AIMessageChunk | undefined;
    let iterator: AsyncIterator<AIMessageChunk> | undefined;
    try {
      try {
        iterator = ((await runnable.stream(messages, callOptions)) as AsyncIterable<AIMessageChunk>)[
          Symbol.asyncIterator
        ]();
      } catch (error) {
        throw toProviderError(error, this.provider, signal);
      }
      while (true) {
        let next: IteratorResult<AIMessageChunk>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw toProviderError(error, this.provider, signal);
        }
        if (next.done) break;
        const chunk = next.value;
        full = full === undefined ? chunk : full.concat(chunk);
        const { text, thought } = textsOf(chunk);
        if (thought !== "")
          yield { content: { role: "model", parts: [{ text: thought, thought: true }] }, partial: true };
        if (text !== "") yield { content: { role: "model", parts: [{ text }] }, partial: true };
      }
      iterator = undefined;
    } finally {
      // The consumer stopped early: end the integration's stream (and its HTTP request).
      await iterator?.return?.();
    }
    if (signal?.aborted) throw toProviderError(signal.reason, this.provider, signal);
    if (full !== undefined) yield fromAiMessage(full, issues);
    else yield {};
  }

  /** Structured output: the parsed object becomes the response text (JSON), as agents expect. */
  private async *structuredCall(
    chatModel: BaseChatModel,
    schema: Record<string, unknown>,
    messages: BaseMessage[],
    callOptions: { signal?: AbortSignal },
    issues: ConversionIssues,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse, void, void> {
    if (typeof chatModel.withStructuredOutput !== "function") {
      throw new ConfigurationError(
        "The wrapped LangChain model does not support structured output (no withStructuredOutput); remove the output " +
          "schema or use a model that has it.",
      );
    }
    const runnable = chatModel.withStructuredOutput(schema, {
      includeRaw: true,
      name: "response",
    }) as unknown as StructuredRunnable;
    let result: { raw: AIMessage; parsed: unknown };
    try {
      result = await runnable.invoke(messages, callOptions);
    } catch (error) {
      throw toProviderError(error, this.provider, signal);
    }
    const response = fromAiMessage(
      { ...result.raw, tool_calls: [], invalid_tool_calls: [] } as unknown as AIMessage,
      issues,
    );
    const text =
      result.parsed !== null && result.parsed !== undefined ? JSON.stringify(result.parsed) : textsOf(result.raw).text;
    response.content = { role: "model", parts: [{ text }] };
    yield response;
  }

  private withTools(chatModel: BaseChatModel, request: LlmRequest): Invocable {
    let declarations = functionDeclarationsOf(request);
    if (declarations.length === 0) return chatModel;
    if (typeof chatModel.bindTools !== "function") {
      throw new ConfigurationError(
        "The wrapped LangChain model does not support tools (no bindTools); use a tool-capable chat model or remove " +
          "the tools.",
      );
    }
    const choice = functionCallingChoice(request.config.toolConfig);
    let toolChoice: string | undefined;
    if (choice.mode === "NONE") toolChoice = "none";
    else if (choice.mode === "AUTO") toolChoice = "auto";
    else if (choice.mode === "ANY") {
      if (choice.allowed.length > 0) declarations = declarations.filter((d) => choice.allowed.includes(d.name));
      toolChoice = choice.allowed.length === 1 ? choice.allowed[0] : "any";
    }
    const tools = declarations.map((d) => ({
      type: "function" as const,
      function: { name: d.name, description: d.description ?? "", parameters: parametersOf(d) },
    }));
    return chatModel.bindTools(
      tools,
      toolChoice === undefined ? {} : { tool_choice: toolChoice },
    ) as unknown as Invocable;
  }

  /**
   * The chat model with the call's sampling: a copy built from the model's constructor fields
   * (cached per setting); `topK` and `maxOutputTokens` only where the model has those fields.
   */
  private withSampling(sampling: SamplingSettings): BaseChatModel {
    const fields: Record<string, unknown> = {};
    const has = (name: string) => name in this.chatModel;
    if (sampling.temperature !== undefined) fields.temperature = sampling.temperature;
    if (sampling.topP !== undefined) fields.topP = sampling.topP;
    if (sampling.topK !== undefined && has("topK")) fields.topK = sampling.topK;
    if (sampling.maxTokens !== undefined)
      fields[has("maxOutputTokens") && !has("maxTokens") ? "maxOutputTokens" : "maxTokens"] = sampling.maxTokens;
    if (Object.keys(fields).length === 0) return this.chatModel;
    const key = JSON.stringify(fields);
    const cached = this.derived.get(key);
    if (cached) return cached;
    const Ctor = this.chatModel.constructor as new (fields: Record<string, unknown>) => BaseChatModel;
    let copy: BaseChatModel;
    try {
      copy = new Ctor({ ...(this.chatModel.lc_kwargs ?? {}), ...fields });
    } catch (error) {
      throw new ConfigurationError(
        `LangChainModel could not apply ${Object.keys(fields).join(", ")} to the wrapped ${this.provider} model ` +
          `(rebuilding it from its constructor fields ` +
          `failed): ${error instanceof Error ? error.message : String(error)}. Set them on the chat model itself ` +
          `instead.`,
        { cause: error },
      );
    }
    this.derived.set(key, copy);
    return copy;
  }
}
