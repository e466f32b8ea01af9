import type { LlmAgent } from "../agents/llm-agent.js";

/**
 * Marks LlmAgent instances without a runtime import of the class (flows are imported by
 * llm-agent.ts, so importing it back would create a module cycle).
 */
export const LLM_AGENT_MARK: unique symbol = Symbol.for("agentkit.LlmAgent");

/** True when the value is an `LlmAgent`. */
export function isLlmAgent(value: unknown): value is LlmAgent {
  return (
    typeof value === "object" && value !== null && (value as { [LLM_AGENT_MARK]?: boolean })[LLM_AGENT_MARK] === true
  );
}
