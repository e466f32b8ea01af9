import { OpenAIModel } from "../../src/openai/index.js";
import { AnthropicModel } from "../../src/anthropic/index.js";
import { FakeOpenAIServer, completion } from "../fixtures/openai-server.js";
import { FakeAnthropicServer, message } from "../fixtures/anthropic-server.js";
import type { ConformanceTarget, ScriptedTurn } from "./run-model-conformance.js";

/** OpenAI Chat Completions wire scripting. */
export async function openAIChatTarget(): Promise<ConformanceTarget> {
  const server = new FakeOpenAIServer();
  const model = new OpenAIModel({ model: "gpt-test", apiKey: "sk", baseURL: await server.start() });
  const toReply = (turn: ScriptedTurn) =>
    "rateLimited" in turn
      ? { kind: "json" as const, status: 429, headers: { "retry-after": "0" }, body: { error: { message: "slow down", type: "requests" } } }
      : "text" in turn
      ? { kind: "json" as const, body: completion({ content: turn.text }) }
      : {
          kind: "json" as const,
          body: completion(
            {
              content: null,
              tool_calls: turn.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })),
            },
            { finishReason: "tool_calls" },
          ),
        };
  return {
    model,
    script: (...turns) => server.reply(...turns.map(toReply)),
    bodies: () => server.requests.map((r) => r.body),
    close: async () => {
      await model.close();
      await server.close();
    },
  };
}

/** Anthropic Messages wire scripting. */
export async function anthropicTarget(): Promise<ConformanceTarget> {
  const server = new FakeAnthropicServer();
  const model = new AnthropicModel({ model: "claude-test", apiKey: "sk", baseURL: await server.start() });
  const toReply = (turn: ScriptedTurn) =>
    "rateLimited" in turn
      ? { kind: "json" as const, status: 429, headers: { "retry-after": "0" }, body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } } }
      : "text" in turn
      ? { kind: "json" as const, body: message([{ type: "text", text: turn.text, citations: null }]) }
      : { kind: "json" as const, body: message(turn.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })), "tool_use") };
  return {
    model,
    script: (...turns) => server.reply(...turns.map(toReply)),
    bodies: () => server.requests.map((r) => r.body),
    close: async () => {
      await model.close();
      await server.close();
    },
  };
}

/** OpenAI Responses API wire scripting. */
export async function openAIResponsesTarget(): Promise<ConformanceTarget> {
  const server = new FakeOpenAIServer();
  const model = new OpenAIModel({ model: "gpt-test", apiKey: "sk", baseURL: await server.start(), api: "responses" });
  const result = (output: unknown[]) => ({
    id: "resp_1",
    object: "response",
    created_at: 1_700_000_000,
    status: "completed",
    model: "gpt-test",
    output,
    usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
    error: null,
    incomplete_details: null,
  });
  const toReply = (turn: ScriptedTurn) =>
    "rateLimited" in turn
      ? { kind: "json" as const, status: 429, headers: { "retry-after": "0" }, body: { error: { message: "slow down", type: "requests" } } }
      : "text" in turn
        ? {
            kind: "json" as const,
            body: result([{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: turn.text, annotations: [] }] }]),
          }
        : {
            kind: "json" as const,
            body: result(turn.toolCalls.map((c, i) => ({ type: "function_call", id: `fc_${i}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.args), status: "completed" }))),
          };
  return {
    model,
    script: (...turns) => server.reply(...turns.map(toReply)),
    bodies: () => server.requests.map((r) => r.body),
    close: async () => {
      await model.close();
      await server.close();
    },
  };
}
