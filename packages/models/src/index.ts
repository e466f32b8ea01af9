// Public API of @agentkit/models (root). Vendor adapters are in their own subpath exports
// (`@agentkit/models/openai`, `@agentkit/models/anthropic`) so their SDKs load only when used.
export const MODELS_PACKAGE = "@agentkit/models";

// Errors
export {
  DEFAULT_RETRYABLE,
  ErrorCategory,
  isProviderError,
  ProviderError,
  RetryStrategy,
  type ProviderErrorOptions,
} from "./errors/provider-error.js";
