import { AgentKitError, ConfigurationError } from "@agentkit/core";
import { mapProviderError } from "../errors/error-mapper.js";
import { ErrorCategory, ProviderError } from "../errors/provider-error.js";

/** Google's error body: `{ error: { code, message, status, details: [...] } }`. */
interface GoogleErrorBody {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<Record<string, unknown>>;
}

/** Gemini's wording for a prompt over the context window. */
const GEMINI_CONTEXT_LENGTH = /input token count .* exceeds the maximum|exceeds the maximum number of tokens/i;

/** What the response that failed said beyond its body (the SDK's ApiError keeps only status and body). */
export interface FailedResponseFacts {
  retryAfter?: string | null;
}

/**
 * Converts a failure of an `@google/genai` call into a classified `ProviderError`. The SDK's
 * `ApiError` carries the HTTP status and Google's JSON error body as its message: the body's
 * `status` (RESOURCE_EXHAUSTED, UNAVAILABLE, …) and a `RetryInfo.retryDelay` detail are read;
 * `Retry-After` comes from the response headers the model captured. SDK-side validation errors
 * (a Vertex-only field on the Gemini API) become `ConfigurationError`s.
 */
export function toProviderError(error: unknown, facts: FailedResponseFacts = {}): unknown {
  if (error instanceof AgentKitError) return error;
  if (error instanceof Error && /only supported in .*mode|not supported in Gemini API/i.test(error.message)) {
    return new ConfigurationError(
      `The request uses a feature the selected Gemini backend does not support: ${error.message}`,
      { cause: error },
    );
  }
  const status = apiErrorStatus(error);
  if (status === undefined) {
    if (error instanceof Error && error.message.startsWith("exception parsing stream chunk")) {
      return new ProviderError({
        category: ErrorCategory.NETWORK,
        provider: "gemini",
        message: `The Gemini stream was cut or garbled: ${error.message}`,
        cause: error,
      });
    }
    if (error instanceof Error && /Incomplete JSON segment at the end/.test(error.message)) {
      return new ProviderError({
        category: ErrorCategory.NETWORK,
        provider: "gemini",
        message: "The Gemini stream ended in the middle of a chunk (connection dropped). Retry the request.",
        cause: error,
      });
    }
    return mapProviderError(error, "gemini");
  }
  const body = parseBody((error as Error).message);
  const headers: Record<string, string> = {};
  const retryDelay = retryInfoMs(body);
  if (facts.retryAfter) headers["retry-after"] = facts.retryAfter;
  else if (retryDelay !== undefined) headers["retry-after-ms"] = String(retryDelay);
  const detail = body?.message ? `${body.status ? `${body.status}: ` : ""}${body.message}` : (error as Error).message;
  const codes = body?.status ? [body.status] : [];
  const mapped = mapProviderError({ status, headers, message: detail, code: codes[0] }, "gemini");
  if (status === 400 && GEMINI_CONTEXT_LENGTH.test(detail)) {
    return new ProviderError({
      category: ErrorCategory.CONTEXT_LENGTH,
      provider: "gemini",
      status,
      message:
        `The request is too long for the Gemini model: ${detail}. Shorten the history (e.g. ` +
        `ContextFilterPlugin) or use a model with a larger context window.`,
      cause: error,
    });
  }
  // The mapper saw a plain record; keep the SDK error as the cause.
  const overloaded = status === 503 || body?.status === "UNAVAILABLE";
  return new ProviderError({
    category: overloaded ? ErrorCategory.OVERLOADED : mapped.category,
    provider: "gemini",
    status,
    message: overloaded
      ? `gemini is overloaded or unavailable: ${detail} (HTTP ${status}). The call is retried with backoff.`
      : mapped.message,
    retryable: mapped.category === ErrorCategory.RATE_LIMIT && isQuotaExhausted(body) ? false : mapped.retryable,
    ...(mapped.retryAfterMs === undefined ? {} : { retryAfterMs: mapped.retryAfterMs }),
    cause: error,
  });
}

function apiErrorStatus(error: unknown): number | undefined {
  if (!(error instanceof Error) || error.name !== "ApiError") return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === "number" ? status : undefined;
}

/** The JSON error body in an ApiError message (an error event inside a stream is prefixed "got status: …. "). */
function parseBody(message: string): GoogleErrorBody | undefined {
  const start = message.indexOf("{");
  if (start === -1) return undefined;
  try {
    const parsed = JSON.parse(message.slice(start)) as { error?: GoogleErrorBody };
    return parsed && typeof parsed === "object" && parsed.error && typeof parsed.error === "object"
      ? parsed.error
      : undefined;
  } catch {
    return undefined;
  }
}

/** `google.rpc.RetryInfo.retryDelay` ("30s", "1.5s") in milliseconds. */
function retryInfoMs(body: GoogleErrorBody | undefined): number | undefined {
  for (const detail of body?.details ?? []) {
    if (!String(detail["@type"] ?? "").endsWith("google.rpc.RetryInfo")) continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(String(detail.retryDelay ?? ""));
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

/** A daily / per-project quota at zero does not recover by retrying within seconds. */
function isQuotaExhausted(body: GoogleErrorBody | undefined): boolean {
  for (const detail of body?.details ?? []) {
    if (!String(detail["@type"] ?? "").endsWith("google.rpc.QuotaFailure")) continue;
    const violations = (detail.violations as Array<Record<string, unknown>> | undefined) ?? [];
    if (violations.some((v) => /PerDay/i.test(String(v.quotaId ?? "")))) return true;
  }
  return false;
}

/** The service no longer has the cache a request named (403/404 "CachedContent not found"). */
export function isMissingCache(error: unknown): boolean {
  const status = apiErrorStatus(error);
  return (status === 403 || status === 404) && /cached ?content/i.test((error as Error).message);
}
