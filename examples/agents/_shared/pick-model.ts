import type { BaseLlm } from "@agentkit/core";
import { DemoModel } from "./demo-model.js";

/**
 * The model the examples run on: a real one when its credentials are in the environment
 * (resolved by name through the runner's model registry), else the offline demo model.
 */
export function pickModel(env: Record<string, string | undefined> = process.env): BaseLlm | string {
  if (env.AGENTKIT_EXAMPLE_MODEL) return env.AGENTKIT_EXAMPLE_MODEL;
  if (env.GOOGLE_API_KEY || env.GEMINI_API_KEY) return "gemini-2.5-flash";
  if (env.OPENAI_API_KEY) return "gpt-4o-mini";
  if (env.ANTHROPIC_API_KEY) return "claude-sonnet-4-5";
  if (env.OLLAMA_HOST) return "ollama/llama3.2";
  return new DemoModel();
}
