import { ErrorCategory, ProviderError, RetryStrategy } from "./provider-error.js";
import { parseRetryAfter } from "./retry-after.js";

/** Node / undici error codes of a connection that failed or dropped. */
const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED",
]);
const NETWORK_MESSAGE = /^(fetch failed|terminated)$|socket hang up|other side closed|network error/i;
const CONTEXT_LENGTH_MESSAGE =
  /context[_ ]length|context window|maximum context|prompt is too long|too many tokens|input is too long|reduce the length of the messages/i;
const CONTENT_FILTER_CODES = new Set(["content_filter", "content_policy_violation"]);
const CONTENT_FILTER_MESSAGE = /content (management )?policy|safety system|flagged as potentially/i;

const API_KEY_ENV: Record<string, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  gemini: "GOOGLE_API_KEY or GEMINI_API_KEY",
};
const BASE_URL_ENV: Record<string, string> = {
  openai: "OPENAI_BASE_URL",
  anthropic: "ANTHROPIC_BASE_URL",
  gemini: "GOOGLE_GEMINI_BASE_URL",
};

/** The parts of an SDK / fetch / Node error the mapping reads. */
interface ErrorFacts {
  status?: number;
  headers?: unknown;
  /** Vendor error type / code strings (e.g. `overloaded_error`, `context_length_exceeded`). */
  codes: string[];
  detail: string;
  name?: string;
}

/**
 * Classifies any thrown value of a provider call. HTTP statuses (SDK errors with `status`,
 * `headers`, `error`), Node network errors, aborts and `Retry-After` / `retry-after-ms`
 * headers are understood; anything else is `UNKNOWN` (not retried). A `ProviderError` passes
 * through unchanged.
 */
export function mapProviderError(error: unknown, provider: string): ProviderError {
  if (error instanceof ProviderError) return error;
  const facts = readFacts(error);
  const base = { provider, cause: error };

  if (isAbort(error)) {
    return new ProviderError({
      ...base,
      category: ErrorCategory.CANCELLED,
      message: `The ${provider} call was cancelled.`,
    });
  }
  if (facts.status !== undefined) return fromStatus(facts, provider, error);
  if (
    facts.name === "APIConnectionTimeoutError" ||
    facts.name === "TimeoutError" ||
    facts.codes.includes("UND_ERR_HEADERS_TIMEOUT")
  ) {
    return timeout(provider, facts, error);
  }
  if (isNetwork(error, facts)) {
    const baseUrl = BASE_URL_ENV[provider] ? ` (${BASE_URL_ENV[provider]})` : "";
    return new ProviderError({
      ...base,
      category: ErrorCategory.NETWORK,
      message:
        `Could not reach ${provider}: ${facts.detail}. Check the network connection and the base ` +
        `URL${baseUrl}; the call is retried automatically.`,
    });
  }
  return new ProviderError({
    ...base,
    category: ErrorCategory.UNKNOWN,
    message: `The ${provider} call failed unexpectedly: ${facts.detail}.`,
  });
}

function fromStatus(facts: ErrorFacts, provider: string, cause: unknown): ProviderError {
  const status = facts.status!;
  const retryAfterMs = parseRetryAfter(facts.headers);
  const base = { provider, status, cause, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  const detail = `${facts.detail} (HTTP ${status})`;
  const has = (code: string) => facts.codes.includes(code);

  if (status === 529 || has("overloaded_error")) {
    return new ProviderError({
      ...base,
      category: ErrorCategory.OVERLOADED,
      message: `${provider} is overloaded: ${detail}. The call is retried with backoff; if it persists, try again later.`,
    });
  }
  if (status === 401 || status === 403) {
    const env = API_KEY_ENV[provider] ?? "the provider's API key setting";
    return new ProviderError({
      ...base,
      category: ErrorCategory.AUTH_ERROR,
      message:
        `${provider} rejected the credentials: ${detail}. Check the API key (${env}) and that it may use this ` +
        `model.`,
    });
  }
  if (status === 408) return timeout(provider, facts, cause, base);
  if (status === 429) {
    // An exhausted quota will not recover by waiting.
    const quota = has("insufficient_quota");
    return new ProviderError({
      ...base,
      category: ErrorCategory.RATE_LIMIT,
      retryable: !quota,
      message: quota
        ? `${provider} quota is exhausted: ${detail}. Check the plan and billing of the account.`
        : `${provider} rate limit reached: ${detail}. The call is retried after the requested wait; lower the ` +
          `request rate or raise the limit if it persists.`,
    });
  }
  if (status >= 500) {
    return new ProviderError({
      ...base,
      category: ErrorCategory.SERVER_ERROR,
      message:
        `${provider} had a server error: ${detail}. The call is retried with backoff; if it persists, check ` +
        `the provider's status page.`,
    });
  }
  if (facts.codes.some((c) => CONTEXT_LENGTH_MESSAGE.test(c)) || CONTEXT_LENGTH_MESSAGE.test(facts.detail)) {
    return new ProviderError({
      ...base,
      category: ErrorCategory.CONTEXT_LENGTH,
      message:
        `The request is too long for the ${provider} model: ${detail}. Shorten the history (e.g. ` +
        `ContextFilterPlugin) or use a model with a larger context window.`,
    });
  }
  if (facts.codes.some((c) => CONTENT_FILTER_CODES.has(c)) || CONTENT_FILTER_MESSAGE.test(facts.detail)) {
    return new ProviderError({
      ...base,
      category: ErrorCategory.CONTENT_FILTER,
      message: `${provider} blocked the request with its content filter: ${detail}. Rephrase the input.`,
    });
  }
  // 409 (conflict) and 425 (too early) describe a transient state of the server.
  const transient = status === 409 || status === 425;
  return new ProviderError({
    ...base,
    category: ErrorCategory.CLIENT_ERROR,
    retryable: transient,
    ...(transient ? { strategy: RetryStrategy.FIXED_DELAY } : {}),
    message: transient
      ? `${provider} could not handle the request right now: ${detail}. The call is retried after a short wait.`
      : `${provider} rejected the request: ${detail}. Check the model name and the request parameters (tools, ` +
        `schema, options).`,
  });
}

function timeout(provider: string, facts: ErrorFacts, cause: unknown, extra: object = {}): ProviderError {
  return new ProviderError({
    provider,
    cause,
    ...extra,
    category: ErrorCategory.TIMEOUT,
    message:
      `The ${provider} call timed out: ${facts.detail}. It is retried; raise the client timeout if it keeps ` +
      `happening.`,
  });
}

function isAbort(error: unknown): boolean {
  const name = error instanceof Error || isObject(error) ? (error as { name?: unknown }).name : undefined;
  return name === "AbortError" || name === "APIUserAbortError";
}

/** Network failure: a known code or message on the error or anywhere in its cause chain. */
function isNetwork(error: unknown, facts: ErrorFacts): boolean {
  if (facts.name === "APIConnectionError") return true;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isObject(current); depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    if (typeof message === "string" && NETWORK_MESSAGE.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function readFacts(error: unknown): ErrorFacts {
  if (!isObject(error)) return { codes: [], detail: String(error) };
  const e = error as Record<string, unknown>;
  const response = isObject(e.response) ? (e.response as Record<string, unknown>) : undefined;
  const status = firstStatus(e.status, e.statusCode, response?.status);
  const headers = e.headers ?? response?.headers;
  // SDK bodies: OpenAI `{ message, type, code }` (sometimes wrapped in
  // `error`), Anthropic `{ type: "error", error: { type, message } }`.
  const body = isObject(e.error) ? (e.error as Record<string, unknown>) : undefined;
  const inner = body && isObject(body.error) ? (body.error as Record<string, unknown>) : undefined;
  const codes = [e.code, e.type, body?.type, body?.code, inner?.type, inner?.code].filter(
    (c): c is string => typeof c === "string" && c !== "" && c !== "error",
  );
  const message = [inner?.message, body?.message, e.message].find(
    (m): m is string => typeof m === "string" && m !== "",
  );
  const name = typeof e.name === "string" ? e.name : undefined;
  return {
    ...(status === undefined ? {} : { status }),
    ...(headers === undefined ? {} : { headers }),
    codes,
    detail: message ?? String(error),
    ...(name === undefined ? {} : { name }),
  };
}

function firstStatus(...values: unknown[]): number | undefined {
  for (const v of values) if (typeof v === "number" && Number.isInteger(v) && v >= 400 && v < 600) return v;
  return undefined;
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}
