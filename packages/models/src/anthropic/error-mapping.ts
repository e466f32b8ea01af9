import Anthropic from "@anthropic-ai/sdk";
import { AgentKitError } from "@agentkit/core";
import { mapProviderError } from "../errors/error-mapper.js";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";

/**
 * Converts a failure of an Anthropic SDK call into a classified `ProviderError`. The SDK's
 * abort and connection classes are recognised by class; an error event inside a stream (no
 * HTTP status) by its body `type`; HTTP errors go through the shared mapper. Errors agentkit
 * already typed pass through.
 */
export function toProviderError(error: unknown): unknown {
  if (error instanceof AgentKitError) return error;
  if (error instanceof Anthropic.APIUserAbortError) {
    return new ProviderError({
      category: ErrorCategory.CANCELLED,
      provider: "anthropic",
      message: "The anthropic call was cancelled.",
      cause: error,
    });
  }
  if (error instanceof Anthropic.APIConnectionTimeoutError) {
    return new ProviderError({
      category: ErrorCategory.TIMEOUT,
      provider: "anthropic",
      message: "The anthropic call timed out. It is retried; raise the timeoutMs option if it keeps happening.",
      cause: error,
    });
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return new ProviderError({
      category: ErrorCategory.NETWORK,
      provider: "anthropic",
      message:
        `Could not reach anthropic: ${error.message}. Check the network and the baseURL option ` +
        `(ANTHROPIC_BASE_URL).`,
      cause: error,
    });
  }
  if (error instanceof Anthropic.APIError && error.status === undefined) {
    const category = STREAM_ERROR_CATEGORY[error.type ?? ""];
    if (category) {
      return new ProviderError({
        category,
        provider: "anthropic",
        message: `anthropic reported an error during the stream (${error.type}): ${error.apiMessage ?? error.message}.`,
        cause: error,
      });
    }
  }
  return mapProviderError(error, "anthropic");
}

/** Error `type`s the API sends in an SSE `error` event (which has no HTTP status). */
const STREAM_ERROR_CATEGORY: Record<string, ErrorCategory> = {
  overloaded_error: ErrorCategory.OVERLOADED,
  rate_limit_error: ErrorCategory.RATE_LIMIT,
  api_error: ErrorCategory.SERVER_ERROR,
  timeout_error: ErrorCategory.TIMEOUT,
  authentication_error: ErrorCategory.AUTH_ERROR,
  permission_error: ErrorCategory.AUTH_ERROR,
  invalid_request_error: ErrorCategory.CLIENT_ERROR,
};
