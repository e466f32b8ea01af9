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
