import OpenAI from "openai";
import { AgentKitError } from "@agentkit/core";
import { mapProviderError } from "../errors/error-mapper.js";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";

/**
 * Converts a failure of an OpenAI SDK call into a classified `ProviderError`. The SDK's
 * abort and connection classes are recognised by class (their `name` is plain "Error");
 * HTTP errors (`status`, `headers`, `{ message, type, code }` body) go through the shared
 * mapper. Errors agentkit already typed pass through.
 */
export function toProviderError(error: unknown): unknown {
  if (error instanceof AgentKitError) return error;
  if (error instanceof OpenAI.APIUserAbortError) {
    return new ProviderError({
      category: ErrorCategory.CANCELLED,
      provider: "openai",
      message: "The openai call was cancelled.",
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ProviderError({
      category: ErrorCategory.TIMEOUT,
      provider: "openai",
      message: "The openai call timed out. It is retried; raise the timeoutMs option if it keeps happening.",
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new ProviderError({
      category: ErrorCategory.NETWORK,
      provider: "openai",
      message:
        `Could not reach openai: ${describeCause(error)}. Check the network and the baseURL option ` +
        `(OPENAI_BASE_URL).`,
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIError && error.status === undefined && streamErrorType(error) === "server_error") {
    // An error event inside an SSE stream has no HTTP status; its body says what failed.
    return new ProviderError({
      category: ErrorCategory.SERVER_ERROR,
      provider: "openai",
      message: `openai had a server error during the stream: ${error.message}. The call can be retried.`,
      cause: error,
    });
  }
  return mapProviderError(error, "openai");
}

function streamErrorType(error: InstanceType<typeof OpenAI.APIError>): string | undefined {
  const body = error.error as { type?: unknown } | undefined;
  return typeof body?.type === "string" ? body.type : typeof error.type === "string" ? error.type : undefined;
}

function describeCause(error: Error): string {
  const cause = error.cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
