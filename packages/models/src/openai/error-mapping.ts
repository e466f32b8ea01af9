import OpenAI from "openai";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";

/** Converts an OpenAI SDK failure into a classified `ProviderError` (other errors pass through). */
export function toProviderError(error: unknown): unknown {
  if (error instanceof ProviderError) return error;
  if (error instanceof OpenAI.APIUserAbortError) {
    return new ProviderError({ category: ErrorCategory.CANCELLED, provider: "openai", message: "The OpenAI request was aborted.", cause: error });
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ProviderError({
      category: ErrorCategory.TIMEOUT,
      provider: "openai",
      message: "The OpenAI request timed out. Raise timeoutMs or retry.",
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new ProviderError({
      category: ErrorCategory.NETWORK,
      provider: "openai",
      message: `Could not reach the OpenAI API (${error.message}). Check baseURL / OPENAI_BASE_URL and the network.`,
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const status = error.status;
    const apiCode = typeof error.code === "string" ? error.code : undefined;
    const options = {
      category: categorize(status, apiCode),
      provider: "openai",
      status,
      message: `OpenAI API error ${status}${apiCode ? ` (${apiCode})` : ""}: ${error.message}${hint(status)}`,
      cause: error,
    } as ConstructorParameters<typeof ProviderError>[0];
    // A 409 (lock conflict) is worth another try; an exhausted quota is not.
    if (status === 409) options.retryable = true;
    if (apiCode === "insufficient_quota") options.retryable = false;
    const retryAfterMs = readRetryAfterMs(error.headers);
    if (retryAfterMs !== undefined) options.retryAfterMs = retryAfterMs;
    return new ProviderError(options);
  }
  return error;
}

function categorize(status: number, apiCode: string | undefined): ErrorCategory {
  if (apiCode === "context_length_exceeded") return ErrorCategory.CONTEXT_LENGTH;
  if (apiCode === "content_filter" || apiCode === "content_policy_violation") return ErrorCategory.CONTENT_FILTER;
  if (status === 401 || status === 403) return ErrorCategory.AUTH_ERROR;
  if (status === 408) return ErrorCategory.TIMEOUT;
  if (status === 429) return ErrorCategory.RATE_LIMIT;
  if (status === 503 || status === 529) return ErrorCategory.OVERLOADED;
  if (status >= 500) return ErrorCategory.SERVER_ERROR;
  if (status >= 400) return ErrorCategory.CLIENT_ERROR;
  return ErrorCategory.UNKNOWN;
}

function hint(status: number): string {
  if (status === 401) return " Check the apiKey option or OPENAI_API_KEY.";
  if (status === 403) return " The key lacks access to this model or organization.";
  if (status === 404) return " Check the model name and baseURL.";
  return "";
}

/** `retry-after-ms` (OpenAI) or `retry-after` in seconds or as an HTTP date. */
function readRetryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (raw === null) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
