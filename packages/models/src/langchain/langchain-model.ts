import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { BaseLlm, type GenerateContentOptions, type LlmRequest, type LlmResponse } from "@agentkit/core";
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
    if (!stream) {
      const result = await this.chatModel.invoke(messages, callOptions);
      yield fromAiMessage(result);
      return;
    }
    let full: AIMessageChunk | undefined;
    for await (const chunk of await this.chatModel.stream(messages, callOptions)) {
      full = full === undefined ? chunk : full.concat(chunk);
      const text = typeof chunk.content === "string" ? chunk.content : "";
      if (text !== "") yield { content: { role: "model", parts: [{ text }] }, partial: true };
    }
    if (full !== undefined) yield fromAiMessage(full);
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
    for (const part of content.parts ?? []) {
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
  return {
    content: { role: "model", parts: [{ text }] },
    ...(usage === undefined
      ? {}
      : { usageMetadata: { promptTokenCount: usage.input_tokens, candidatesTokenCount: usage.output_tokens, totalTokenCount: usage.total_tokens } }),
  };
}
