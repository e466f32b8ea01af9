import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { BaseLlm, ConfigurationError, type GenerateContentOptions, type LlmRequest, type LlmResponse } from "@agentkit/core";
import { MessageConversionError } from "../framework/message-conversion-error.js";

export interface LangChainModelOptions {
  /** The wrapped LangChain chat model. */
  model: BaseChatModel;
  name?: string;
}

/** Wraps any @langchain/core chat model as an agentkit model (text only in this increment; tools are a known gap). */
export class LangChainModel extends BaseLlm {
  readonly chatModel: BaseChatModel;

  constructor(options: LangChainModelOptions) {
    super({ model: options.name ?? "langchain" });
    this.chatModel = options.model;
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream = false,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    const messages = toLangChainMessages(request);
    const callOptions = options.signal === undefined ? {} : { signal: options.signal };
    const runnable = this.withTools(request);
    if (!stream) {
      const result = (await runnable.invoke(messages, callOptions)) as AIMessage;
      yield fromAiMessage(result);
      return;
    }
    let full: AIMessageChunk | undefined;
    for await (const chunk of (await runnable.stream(messages, callOptions)) as AsyncIterable<AIMessageChunk>) {
      full = full === undefined ? chunk : full.concat(chunk);
      const text = typeof chunk.content === "string" ? chunk.content : "";
      if (text !== "") yield { content: { role: "model", parts: [{ text }] }, partial: true };
    }
    if (full !== undefined) yield fromAiMessage(full);
  }

  private withTools(request: LlmRequest): Pick<BaseChatModel, "invoke" | "stream"> {
    const declarations = (request.config?.tools ?? []).flatMap((t) => ("functionDeclarations" in t ? (t.functionDeclarations ?? []) : []));
    if (declarations.length === 0) return this.chatModel;
    if (typeof this.chatModel.bindTools !== "function") {
      throw new ConfigurationError("The wrapped LangChain model does not support tools (no bindTools); use a tool-capable chat model or remove the tools.");
    }
    const tools = declarations.map((d) => ({
      type: "function" as const,
      function: { name: d.name ?? "", description: d.description ?? "", parameters: (d.parametersJsonSchema ?? d.parameters ?? { type: "object", properties: {} }) as Record<string, unknown> },
    }));
    return this.chatModel.bindTools(tools) as unknown as Pick<BaseChatModel, "invoke" | "stream">;
  }
}

function textOf(parts: readonly { text?: string }[] | undefined): string {
  return (parts ?? []).map((p) => p.text ?? "").join("");
}

/** Converts the Gemini-shaped request into LangChain messages. */
export function toLangChainMessages(request: LlmRequest): BaseMessage[] {
  const messages: BaseMessage[] = [];
  const system = request.config?.systemInstruction;
  if (typeof system === "string" && system !== "") messages.push(new SystemMessage(system));
  for (const content of request.contents ?? []) {
    const parts = content.parts ?? [];
    const responses = parts.filter((p) => p.functionResponse !== undefined);
    if (responses.length > 0) {
      for (const p of responses) {
        const r = p.functionResponse!;
        messages.push(new ToolMessage({ content: JSON.stringify(r.response ?? {}), tool_call_id: r.id ?? r.name ?? "" }));
      }
      continue;
    }
    const calls = parts.filter((p) => p.functionCall !== undefined);
    if (content.role === "model" && calls.length > 0) {
      messages.push(new AIMessage({
        content: textOf(parts),
        tool_calls: calls.map((p) => ({ id: p.functionCall!.id ?? p.functionCall!.name ?? "", name: p.functionCall!.name ?? "", args: p.functionCall!.args ?? {}, type: "tool_call" as const })),
      }));
      continue;
    }
    for (const part of parts) {
      if (part.text === undefined) {
        throw new MessageConversionError("LangChainModel converts text parts only in this version; remove tools and media from the request.");
      }
    }
    const text = textOf(content.parts);
    messages.push(content.role === "model" ? new AIMessage(text) : new HumanMessage(text));
  }
  return messages;
}

function fromAiMessage(message: AIMessage | AIMessageChunk): LlmResponse {
  const text = typeof message.content === "string" ? message.content : "";
  const usage = message.usage_metadata;
  const calls = (message.tool_calls ?? []).map((c) => ({ functionCall: { id: c.id ?? c.name, name: c.name, args: c.args } }));
  return {
    content: { role: "model", parts: [...(text === "" && calls.length > 0 ? [] : [{ text }]), ...calls] },
    ...(usage === undefined
      ? {}
      : { usageMetadata: { promptTokenCount: usage.input_tokens, candidatesTokenCount: usage.output_tokens, totalTokenCount: usage.total_tokens } }),
  };
}
