import { AgentKitError } from "@agentkit/core";
import { mapProviderError } from "../errors/error-mapper.js";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";

/**
 * Classifies a failure of a wrapped LangChain model. LangChain integrations rethrow the vendor
 * SDK's error (with `status`, `headers`, the error body) or their own `AbortError` /
 * `TimeoutError`; the shared mapper reads all of them. An aborted signal is a cancellation
 * whatever the integration threw.
 */
export function toProviderError(error: unknown, provider: string, signal: AbortSignal | undefined): unknown {
  if (error instanceof AgentKitError) return error;
  if (signal?.aborted) {
    return new ProviderError({
      category: ErrorCategory.CANCELLED,
      provider,
      message: `The ${provider} call was cancelled.`,
      cause: error,
    });
  }
  return mapProviderError(error, provider);
}
