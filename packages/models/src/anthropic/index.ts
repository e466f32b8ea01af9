// Public API of @agentkit/models/anthropic.
export { AnthropicModel } from "./anthropic-model.js";
export type { AnthropicModelOptions } from "./anthropic-options.js";
