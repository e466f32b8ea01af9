/**
 * The environment that makes the example agents (examples/agents/_shared/pick-model.ts) choose
 * their offline demo model: every variable that would select a real provider, emptied. Spread
 * into the environment of an `agentkit` process a test or benchmark starts.
 */
export const OFFLINE_ENV: Readonly<Record<string, string>> = {
  GOOGLE_API_KEY: "",
  GEMINI_API_KEY: "",
  OPENAI_API_KEY: "",
  ANTHROPIC_API_KEY: "",
  OLLAMA_HOST: "",
  AGENTKIT_EXAMPLE_MODEL: "",
};
