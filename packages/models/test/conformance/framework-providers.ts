import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import type { BaseLlm } from "@agentkit/core";
import { AiSdkModel } from "../../src/ai-sdk/index.js";
import { LangChainModel } from "../../src/langchain/index.js";
import { FakeOpenAIServer, completion } from "../fixtures/openai-server.js";
import { openAIChatStream, openAIResponsesReply, openAIResponsesStream } from "./stream-replies.js";
import type { ConformanceTarget, ScriptedTurn } from "./run-model-conformance.js";

/** A provider-neutral turn as a Chat Completions reply. */
function openAIChatReply(turn: ScriptedTurn) {
  if ("rateLimited" in turn) {
    return {
      kind: "json" as const,
      status: 429,
      headers: { "retry-after": "0" },
      body: { error: { message: "slow down", type: "requests" } },
    };
  }
  if ("text" in turn) return { kind: "json" as const, body: completion({ content: turn.text }) };
  const toolCalls = turn.toolCalls.map((c) => ({
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  return {
    kind: "json" as const,
    body: completion({ content: null, tool_calls: toolCalls }, { finishReason: "tool_calls" }),
  };
}

/** A framework adapter over a fake OpenAI Chat Completions server. */
async function openAIChatFrameworkTarget(wrap: (baseURL: string) => BaseLlm): Promise<ConformanceTarget> {
  const server = new FakeOpenAIServer();
  const model = wrap(await server.start());
  return {
    model,
    script: (...turns) => server.reply(...turns.map(openAIChatReply)),
    scriptStream: (chunks) => server.reply(openAIChatStream(chunks)),
    bodies: () => server.requests.map((r) => r.body),
    close: async () => {
      await model.close();
      await server.close();
    },
  };
}

/** AiSdkModel wrapping the real `@ai-sdk/openai` chat model. */
export function aiSdkOpenAITarget(): Promise<ConformanceTarget> {
  return openAIChatFrameworkTarget(
    (baseURL) => new AiSdkModel({ model: createOpenAI({ baseURL, apiKey: "sk" }).chat("gpt-test") }),
  );
}

/** LangChainModel wrapping the real `@langchain/openai` ChatOpenAI (its own retries off). */
export function langChainOpenAITarget(): Promise<ConformanceTarget> {
  return openAIChatFrameworkTarget(
    (baseURL) =>
      new LangChainModel({
        model: new ChatOpenAI({ model: "gpt-test", apiKey: "sk", configuration: { baseURL }, maxRetries: 0 }),
      }),
  );
}

/** AiSdkModel wrapping the real `@ai-sdk/openai` Responses API model. */
export async function aiSdkOpenAIResponsesTarget(): Promise<ConformanceTarget> {
  const server = new FakeOpenAIServer();
  const baseURL = await server.start();
  const model = new AiSdkModel({ model: createOpenAI({ baseURL, apiKey: "sk" }).responses("gpt-test") });
  return {
    model,
    script: (...turns) => server.reply(...turns.map(openAIResponsesReply)),
    scriptStream: (chunks) => server.reply(openAIResponsesStream(chunks)),
    bodies: () => server.requests.map((r) => r.body),
    close: async () => {
      await model.close();
      await server.close();
    },
  };
}
