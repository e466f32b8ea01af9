// Public API of @agentkit/models (root). Vendor adapters are in their own subpath exports
// (`@agentkit/models/openai`, `@agentkit/models/anthropic`) so their SDKs load only when used.

// Errors
export {
  CATEGORY_RETRY,
  DEFAULT_RETRYABLE,
  ErrorCategory,
  isProviderError,
  ProviderError,
  RetryStrategy,
  type CategoryRetry,
  type ProviderErrorOptions,
} from "./errors/provider-error.js";
export { mapProviderError } from "./errors/error-mapper.js";
export { parseRetryAfter, readHeader, type HeadersLike } from "./errors/retry-after.js";
export { GenAiFieldMissingError } from "./errors/genai-field-missing-error.js";

// Retries
export {
  abortableSleep,
  classifyFailure,
  computeDelay,
  DEFAULT_RETRY_POLICY,
  resolveRetryPolicy,
  withRetries,
  providerRetryOptions,
  type FailureDecision,
  type RetryEvent,
  type RetryPolicy,
  type WithRetriesOptions,
} from "./retry/retry-policy.js";
export { RetryingModel, type RetryingModelOptions } from "./retry/retrying-model.js";

// Failover
export {
  FallbackModel,
  type FallbackModelOptions,
  type FailoverEvent,
  type FallbackModelHealth,
} from "./fallback/fallback-model.js";
export {
  CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitPermit,
  type CircuitState,
} from "./fallback/circuit-breaker.js";

// Registry
export {
  createModelRegistry,
  parseFallbackName,
  FALLBACK_PREFIX,
  DEFAULT_MODEL_PATTERNS,
  DEFAULT_OLLAMA_BASE_URL,
  openAICompatibleEndpoint,
  type AdapterSettings,
  type CreateModelRegistryOptions,
  type OpenAICompatibleSettings,
} from "./registry/create-model-registry.js";
export { LazyModel, type ModelLoader } from "./registry/lazy-model.js";
