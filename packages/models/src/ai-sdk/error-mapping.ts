import { APICallError } from "@ai-sdk/provider";
import { AgentKitError } from "@agentkit/core";
import { mapProviderError } from "../errors/error-mapper.js";

/**
 * Converts a failure of an AI SDK model call into a classified `ProviderError`. `APICallError`
 * carries `statusCode`, `responseHeaders` (Retry-After) and the parsed error body in `data`;
 * fetch aborts and network failures are understood by the shared mapper. Errors agentkit
 * already typed pass through.
 */
export function toProviderError(error: unknown, provider: string): unknown {
  if (error instanceof AgentKitError) return error;
  if (APICallError.isInstance(error)) {
    return mapProviderError(
      {
        name: error.name,
        message: error.message,
        status: error.statusCode,
        headers: error.responseHeaders,
        error: error.data,
        cause: error.cause,
      },
      provider,
    );
  }
  return mapProviderError(error, provider);
}

/** `openai.chat` → `openai`: the vendor name the error messages and hints use. */
export function providerName(provider: string): string {
  const vendor = provider.split(".")[0];
  return vendor !== undefined && vendor !== "" ? vendor : "ai-sdk";
}
