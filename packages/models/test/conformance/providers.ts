import { openAIChatStream, openAIResponsesStream, anthropicStream } from "./stream-replies.js";
import { OpenAIModel } from "../../src/openai/index.js";
import { AnthropicModel } from "../../src/anthropic/index.js";
import { FakeOpenAIServer, completion } from "../fixtures/openai-server.js";
import { FakeAnthropicServer, message } from "../fixtures/anthropic-server.js";
import { Gemini } from "../../src/gemini/index.js";
import {
  candidateResponse,
  errorReply as geminiErrorReply,
  FakeGeminiServer,
  type GeminiReply,
} from "../fixtures/gemini-server.js";
import type { BaseLlm } from "@agentkit/core";
import type { RecordedRequest } from "../fixtures/scripted-http-server.js";
import type { ConformanceTarget, ScriptedTurn } from "./run-model-conformance.js";

/**
 * How a target builds its model from the fake server's base URL (default: the vendor adapter
 * with a test key) and checks the requests it sent (e.g. a gateway header).
 */
export interface TargetVariant {
  makeModel?: (baseURL: string) => BaseLlm;
  verify?: (requests: RecordedRequest[]) => void;
}

/** OpenAI Chat Completions wire scripting. */
export async function openAIChatTarget(variant: TargetVariant = {}): Promise<ConformanceTarget> {
  const server = new FakeOpenAIServer();
  const baseURL = await server.start();
  const model = variant.makeModel?.(baseURL) ?? new OpenAIModel({ model: "gpt-test", apiKey: "sk", baseURL });
  const toReply = (turn: ScriptedTurn) =>
    "rateLimited" in turn
      ? {
          kind: "json" as const,
          status: 429,
          headers: { "retry-after": "0" },
          body: { error: { message: "slow down", type: "requests" } },
        }
      : "text" in turn
        ? { kind: "json" as const, body: completion({ content: turn.text }) }
        : {
            kind: "json" as const,
            body: completion(
              {
                content: null,
                tool_calls: turn.toolCalls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: JSON.stringify(c.args) },
                })),
              },
              { finishReason: "tool_calls" },
            ),
          };
  return {
    model,
    script: (...turns) => server.reply(...turns.map(toReply)),
    scriptStream: (chunks) => server.reply(openAIChatStream(chunks)),
    bodies: () => server.requests.map((r) => r.body),
    verifyRequests: () => variant.verify?.(server.requests),
    close: async () => {
      await model.close();
      await server.close();
    },
  };
}

/** Anthropic Messages wire scripting. */
export async function anthropicTarget(variant: TargetVariant = {}): Promise<ConformanceTarget> {
  const server = new FakeAnthropicServer();
  const baseURL = await server.start();
  const model = variant.makeModel?.(baseURL) ?? new AnthropicModel({ model: "claude-test", apiKey: "sk", baseURL });
  const toReply = (turn: ScriptedTurn) =>
    "rateLimited" in turn
      ? {
          kind: "json" as const,
          status: 429,
          headers: { "retry-after": "0" },
          body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
        }
      : "text" in turn
        ? { kind: "json" as const, body: message([{ type: "text", text: turn.text, citations: null }]) }
        : {
            kind: "json" as const,
            body: message(
              turn.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
              "tool_use",
            ),
          };
  return {
    model,
    script: (...turns) => server.reply(...turns.map(toReply)),
    scriptStream: (chunks) => server.reply(anthropicStream(chunks)),
    bodies: () => server.requests.map((r) => r.body),
    verifyRequests: () => variant.verify?.(server.requests),
    close: async () => {
      await model.close();
      await server.close();
    },
  };
}

/** OpenAI Responses API wire scripting. */
export async function openAIResponsesTarget(variant: TargetVariant = {}): Promise<ConformanceTarget> {
  const server = new FakeOpenAIServer();
  const baseURL = await server.start();
  const model =
    variant.makeModel?.(baseURL) ?? new OpenAIModel({ model: "gpt-test", apiKey: "sk", baseURL, api: "responses" });
  const result = (output: unknown[]) => ({
    id: "resp_1",
    object: "response",
    created_at: 1_700_000_000,
    status: "completed",
    model: "gpt-test",
    output,
    usage: {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    },
    error: null,
    incomplete_details: null,
  });
  const toReply = (turn: ScriptedTurn) =>
    "rateLimited" in turn
      ? {
          kind: "json" as const,
          status: 429,
          headers: { "retry-after": "0" },
          body: { error: { message: "slow down", type: "requests" } },
        }
      : "text" in turn
        ? {
            kind: "json" as const,
            body: result([
              {
                type: "message",
                id: "msg_1",
                role: "assistant",
                status: "completed",
                content: [{ type: "output_text", text: turn.text, annotations: [] }],
              },
            ]),
          }
        : {
            kind: "json" as const,
            body: result(
              turn.toolCalls.map((c, i) => ({
                type: "function_call",
                id: `fc_${i}`,
                call_id: c.id,
                name: c.name,
                arguments: JSON.stringify(c.args),
                status: "completed",
              })),
            ),
          };
  return {
    model,
    script: (...turns) => server.reply(...turns.map(toReply)),
    scriptStream: (chunks) => server.reply(openAIResponsesStream(chunks)),
    bodies: () => server.requests.map((r) => r.body),
    verifyRequests: () => variant.verify?.(server.requests),
    close: async () => {
      await model.close();
      await server.close();
    },
  };
}

/** Gemini REST wire scripting (generateContent). */
export async function geminiTarget(variant: TargetVariant = {}): Promise<ConformanceTarget> {
  const server = new FakeGeminiServer();
  const baseUrl = await server.start();
  const model = variant.makeModel?.(baseUrl) ?? new Gemini({ model: "gemini-test", apiKey: "k", baseUrl });
  const toReply = (turn: ScriptedTurn): GeminiReply => {
    if ("rateLimited" in turn)
      return geminiErrorReply(429, "RESOURCE_EXHAUSTED", "slow down", { headers: { "retry-after": "0" } });
    if ("text" in turn) return { kind: "json", body: candidateResponse([{ text: turn.text }]) };
    if ("toolCalls" in turn)
      return {
        kind: "json",
        body: candidateResponse(
          turn.toolCalls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.args } })),
        ),
      };
    throw new Error(`geminiTarget: no Gemini wire form for the turn ${JSON.stringify(turn)}; add one here.`);
  };
  return {
    model,
    script: (...turns) => server.reply(...turns.map(toReply)),
    // Gemini streams whole GenerateContentResponse objects: one text piece each, the finish
    // reason and usage on the last one.
    scriptStream: (chunks) =>
      server.reply({
        kind: "sse",
        chunks: chunks.map((text, i) =>
          i === chunks.length - 1
            ? candidateResponse([{ text }], {
                finishReason: "STOP",
                usage: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
              })
            : {
                candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0 }],
                modelVersion: "gemini-2.5-flash",
                responseId: "resp-fake",
              },
        ),
      }),
    bodies: () => server.generateRequests.map((r) => r.body),
    verifyRequests: () => variant.verify?.(server.requests),
    close: async () => {
      await model.close();
      await server.close();
    },
  };
}
