import type { LlmAgent } from "../agents/llm-agent.js";
import { isFinalResponse, type Event } from "../events/event.js";
import { AgentKitError } from "../errors/agentkit-error.js";
import { setOwn } from "../sessions/own-keys.js";
import { parseStructuredOutput } from "./output-schema.js";

/**
 * Writes the agent's final answer to `state[outputKey]` through the event's state delta (so
 * the session service persists it with the event). Only the agent's own, complete, final
 * events with text count; with an output schema the text is parsed and validated. An answer
 * that fails validation is not stored: the event keeps its content and gets
 * `errorCode`/`errorMessage` instead (ADK raises here; we report).
 */
export function saveOutputToState(agent: LlmAgent, event: Event): void {
  if (!agent.outputKey || event.author !== agent.name || event.partial || !isFinalResponse(event)) return;
  const parts = event.content?.parts ?? [];
  const textParts = parts.filter((p) => typeof p.text === "string" && !p.thought);
  if (textParts.length === 0) return;
  const text = textParts.map((p) => p.text).join("");
  if (!agent.outputSchema) {
    setOwn(event.actions.stateDelta, agent.outputKey, text);
    return;
  }
  // An empty closing chunk of a stream is not an answer.
  if (text.trim() === "") return;
  try {
    setOwn(event.actions.stateDelta, agent.outputKey, parseStructuredOutput(agent.outputSchema, text));
  } catch (error) {
    if (!(error instanceof AgentKitError)) throw error;
    event.errorCode = error.code;
    event.errorMessage = error.message;
  }
}
