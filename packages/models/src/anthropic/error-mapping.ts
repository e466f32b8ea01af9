import Anthropic from "@anthropic-ai/sdk";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";

/** Maps an error the Anthropic SDK threw to a classified `ProviderError` (others pass through). */
export function toProviderError(error: unknown): unknown {
  if (error instanceof ProviderError) return error;
  if (error instanceof Anthropic.APIUserAbortError) {
    return new ProviderError({ category: ErrorCategory.CANCELLED, provider: "anthropic", message: "The Anthropic request was aborted.", cause: error });
  }
  if (error instanceof Anthropic.APIConnectionTimeoutError) {
    return new ProviderError({
      category: ErrorCategory.TIMEOUT,
      provider: "anthropic",
      message: "The Anthropic request timed out. Raise `timeoutMs` or retry.",
      cause: error,
    });
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return new ProviderError({
      category: ErrorCategory.NETWORK,
      provider: "anthropic",
      message: `Could not reach the Anthropic API (${error.message}). Check the network and ANTHROPIC_BASE_URL.`,
      cause: error,
    });
  }
  if (error instanceof Anthropic.APIError) {
    const status = error.status;
    const detail = error.apiMessage ?? error.message;
    const retryAfterMs = retryAfter(error.headers);
    const base = { provider: "anthropic", cause: error, ...(status !== undefined ? { status } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    const category = categoryOf(status, error.type, detail);
    return new ProviderError({ ...base, category, message: `Anthropic API error${status ? ` ${status}` : ""}: ${detail}${ADVICE[category] ?? ""}` });
  }
  return error;
}

const ADVICE: Partial<Record<ErrorCategory, string>> = {
  AUTH_ERROR: " Check the apiKey option or ANTHROPIC_API_KEY.",
  RATE_LIMIT: " Slow down or retry after the indicated delay.",
  OVERLOADED: " Anthropic is overloaded; retry later.",
  SERVER_ERROR: " Retry later.",
  CONTEXT_LENGTH: " Shorten the conversation or lower maxOutputTokens.",
};

/** By HTTP status, or by the body's error `type` (errors sent inside a stream carry no status). */
function categoryOf(status: number | undefined, type: string | null, detail: string): ErrorCategory {
  if (status === undefined) return TYPE_CATEGORY[type ?? ""] ?? ErrorCategory.UNKNOWN;
  if (status === 401 || status === 403) return ErrorCategory.AUTH_ERROR;
  if (status === 429) return ErrorCategory.RATE_LIMIT;
  if (status === 529) return ErrorCategory.OVERLOADED;
  if (status === 408) return ErrorCategory.TIMEOUT;
  if (status === 413 || (status === 400 && /prompt is too long|context (window|length)/i.test(detail))) return ErrorCategory.CONTEXT_LENGTH;
  if (status >= 500) return ErrorCategory.SERVER_ERROR;
  if (status >= 400) return ErrorCategory.CLIENT_ERROR;
  return ErrorCategory.UNKNOWN;
}

const TYPE_CATEGORY: Record<string, ErrorCategory> = {
  overloaded_error: ErrorCategory.OVERLOADED,
  rate_limit_error: ErrorCategory.RATE_LIMIT,
  api_error: ErrorCategory.SERVER_ERROR,
  authentication_error: ErrorCategory.AUTH_ERROR,
  permission_error: ErrorCategory.AUTH_ERROR,
  invalid_request_error: ErrorCategory.CLIENT_ERROR,
  timeout_error: ErrorCategory.TIMEOUT,
};

function retryAfter(headers: Headers | undefined): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const seconds = headers?.get("retry-after");
  if (!seconds) return undefined;
  if (Number.isFinite(Number(seconds))) return Number(seconds) * 1000;
  const date = Date.parse(seconds);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
