import { describe, expect, it } from "@jest/globals";
import { AgentKitError } from "@agentkit/core";
import {
  CATEGORY_RETRY,
  ErrorCategory,
  GenAiFieldMissingError,
  mapProviderError,
  parseRetryAfter,
  ProviderError,
  RetryStrategy,
} from "../src/index.js";

/** The shape the vendor SDKs throw: status, headers, parsed error body. */
class FakeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly error?: unknown,
    readonly headers?: unknown,
  ) {
    super(message);
  }
}

describe("mapProviderError: HTTP statuses", () => {
  const rows: Array<[number, ErrorCategory, boolean, RetryStrategy]> = [
    [400, ErrorCategory.CLIENT_ERROR, false, RetryStrategy.NONE],
    [401, ErrorCategory.AUTH_ERROR, false, RetryStrategy.NONE],
    [403, ErrorCategory.AUTH_ERROR, false, RetryStrategy.NONE],
    [404, ErrorCategory.CLIENT_ERROR, false, RetryStrategy.NONE],
    [408, ErrorCategory.TIMEOUT, true, RetryStrategy.FIXED_DELAY],
    [409, ErrorCategory.CLIENT_ERROR, true, RetryStrategy.FIXED_DELAY],
    [422, ErrorCategory.CLIENT_ERROR, false, RetryStrategy.NONE],
    [425, ErrorCategory.CLIENT_ERROR, true, RetryStrategy.FIXED_DELAY],
    [429, ErrorCategory.RATE_LIMIT, true, RetryStrategy.EXPONENTIAL_BACKOFF],
    [500, ErrorCategory.SERVER_ERROR, true, RetryStrategy.EXPONENTIAL_BACKOFF],
    [502, ErrorCategory.SERVER_ERROR, true, RetryStrategy.EXPONENTIAL_BACKOFF],
    [503, ErrorCategory.SERVER_ERROR, true, RetryStrategy.EXPONENTIAL_BACKOFF],
    [504, ErrorCategory.SERVER_ERROR, true, RetryStrategy.EXPONENTIAL_BACKOFF],
    [529, ErrorCategory.OVERLOADED, true, RetryStrategy.EXPONENTIAL_BACKOFF],
  ];
  it.each(rows)("status %i maps to %s (retryable %s, %s)", (status, category, retryable, strategy) => {
    const cause = new FakeApiError(status, `boom ${status}`);
    const mapped = mapProviderError(cause, "openai");
    expect(mapped).toBeInstanceOf(ProviderError);
    expect(mapped).toBeInstanceOf(AgentKitError);
    expect(mapped.category).toBe(category);
    expect(mapped.code).toBe(category);
    expect(mapped.status).toBe(status);
    expect(mapped.retryable).toBe(retryable);
    expect(mapped.strategy).toBe(strategy);
    expect(mapped.provider).toBe("openai");
    expect(mapped.cause).toBe(cause);
    expect(mapped.message).toContain(`boom ${status}`);
  });

  it("tells what to do on an auth failure, naming the API key variable", () => {
    expect(mapProviderError(new FakeApiError(401, "bad key"), "openai").message).toContain("OPENAI_API_KEY");
    expect(mapProviderError(new FakeApiError(403, "nope"), "anthropic").message).toContain("ANTHROPIC_API_KEY");
  });

  it("reads a status from `statusCode` and from `response.status`", () => {
    expect(mapProviderError({ statusCode: 503, message: "x" }, "p").category).toBe(ErrorCategory.SERVER_ERROR);
    expect(mapProviderError({ response: { status: 429 }, message: "x" }, "p").category).toBe(ErrorCategory.RATE_LIMIT);
  });
});

describe("mapProviderError: vendor error bodies", () => {
  it("maps OpenAI's context_length_exceeded code to CONTEXT_LENGTH", () => {
    const err = new FakeApiError(400, "400 too long", {
      message: "too long",
      type: "invalid_request_error",
      code: "context_length_exceeded",
    });
    const mapped = mapProviderError(err, "openai");
    expect(mapped.category).toBe(ErrorCategory.CONTEXT_LENGTH);
    expect(mapped.retryable).toBe(false);
  });

  it("maps Anthropic's 'prompt is too long' message to CONTEXT_LENGTH", () => {
    const body = {
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" },
    };
    const mapped = mapProviderError(new FakeApiError(400, "400", body), "anthropic");
    expect(mapped.category).toBe(ErrorCategory.CONTEXT_LENGTH);
    expect(mapped.message).toContain("prompt is too long");
  });

  it("maps Anthropic's overloaded_error body to OVERLOADED whatever the status", () => {
    const body = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
    expect(mapProviderError(new FakeApiError(500, "500", body), "anthropic").category).toBe(ErrorCategory.OVERLOADED);
  });

  it("maps a content-policy rejection to CONTENT_FILTER (not retried)", () => {
    const err = new FakeApiError(400, "400", {
      message: "Your request was rejected by our safety system",
      code: "content_policy_violation",
    });
    const mapped = mapProviderError(err, "openai");
    expect(mapped.category).toBe(ErrorCategory.CONTENT_FILTER);
    expect(mapped.retryable).toBe(false);
  });

  it("does not retry a 429 for an exhausted quota", () => {
    const mapped = mapProviderError(
      new FakeApiError(429, "429", { code: "insufficient_quota", message: "quota" }),
      "openai",
    );
    expect(mapped.category).toBe(ErrorCategory.RATE_LIMIT);
    expect(mapped.retryable).toBe(false);
    expect(mapped.message).toMatch(/billing/);
  });
});

describe("mapProviderError: network, timeouts, aborts, unknowns", () => {
  it.each(["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EPIPE"])("maps a Node %s error to NETWORK", (code) => {
    const err = Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
    const mapped = mapProviderError(err, "openai");
    expect(mapped.category).toBe(ErrorCategory.NETWORK);
    expect(mapped.retryable).toBe(true);
    expect(mapped.strategy).toBe(RetryStrategy.IMMEDIATE_RETRY);
    expect(mapped.message).toContain("OPENAI_BASE_URL");
  });

  it("maps fetch's 'fetch failed' (code in the cause) and undici's 'terminated' to NETWORK", () => {
    const fetchFailed = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }),
    });
    expect(mapProviderError(fetchFailed, "p").category).toBe(ErrorCategory.NETWORK);
    expect(mapProviderError(new TypeError("terminated"), "p").category).toBe(ErrorCategory.NETWORK);
    const nested = new Error("Connection error.", {
      cause: new Error("wrapper", { cause: Object.assign(new Error("x"), { code: "EPIPE" }) }),
    });
    expect(mapProviderError(nested, "p").category).toBe(ErrorCategory.NETWORK);
  });

  it("maps an AbortError to CANCELLED, not retryable", () => {
    const abort = new DOMException("This operation was aborted", "AbortError");
    for (const err of [abort, Object.assign(new Error("Request was aborted."), { name: "APIUserAbortError" })]) {
      const mapped = mapProviderError(err, "openai");
      expect(mapped.category).toBe(ErrorCategory.CANCELLED);
      expect(mapped.retryable).toBe(false);
      expect(mapped.strategy).toBe(RetryStrategy.NONE);
    }
  });

  it("maps an SDK connection timeout to TIMEOUT", () => {
    const err = Object.assign(new Error("Request timed out."), { name: "APIConnectionTimeoutError" });
    expect(mapProviderError(err, "openai").category).toBe(ErrorCategory.TIMEOUT);
  });

  it("maps anything else to UNKNOWN (not retried) and keeps the cause", () => {
    const err = new RangeError("weird");
    const mapped = mapProviderError(err, "openai");
    expect(mapped.category).toBe(ErrorCategory.UNKNOWN);
    expect(mapped.retryable).toBe(false);
    expect(mapped.cause).toBe(err);
    expect(mapProviderError("a string", "p").message).toContain("a string");
  });

  it("passes a ProviderError through unchanged", () => {
    const original = new ProviderError({ category: ErrorCategory.RATE_LIMIT, provider: "x", message: "m" });
    expect(mapProviderError(original, "y")).toBe(original);
  });
});

describe("Retry-After", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");

  it("parses seconds, an HTTP date and retry-after-ms (which wins)", () => {
    expect(parseRetryAfter({ "retry-after": "7" }, now)).toBe(7000);
    expect(parseRetryAfter({ "Retry-After": "1.5" }, now)).toBe(1500);
    expect(parseRetryAfter({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, now)).toBe(30_000);
    expect(parseRetryAfter({ "retry-after": "Wed, 31 Dec 2025 23:00:00 GMT" }, now)).toBe(0);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ "Retry-After": "2" }), now)).toBe(2000);
  });

  it("ignores absent or unparseable values", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfter({ "retry-after-ms": "x" }, now)).toBeUndefined();
  });

  it("lands on the mapped error from Headers and plain-object headers", () => {
    const fromHeaders = mapProviderError(
      new FakeApiError(429, "slow down", undefined, new Headers({ "retry-after": "3" })),
      "openai",
    );
    expect(fromHeaders.retryAfterMs).toBe(3000);
    const fromObject = mapProviderError(
      new FakeApiError(503, "busy", undefined, { "retry-after-ms": "120" }),
      "anthropic",
    );
    expect(fromObject.retryAfterMs).toBe(120);
    expect(mapProviderError(new FakeApiError(500, "x"), "p").retryAfterMs).toBeUndefined();
  });
});

describe("category table and GenAiFieldMissingError", () => {
  it("has a retry entry for every category; final categories use NONE", () => {
    for (const category of Object.values(ErrorCategory)) {
      const entry = CATEGORY_RETRY[category];
      expect(entry.retryable).toBe(entry.strategy !== RetryStrategy.NONE);
    }
  });

  it("GenAiFieldMissingError is an AgentKitError with code GENAI_FIELD_MISSING naming the field", () => {
    const err = new GenAiFieldMissingError("choices", "the OpenAI chat completion");
    expect(err).toBeInstanceOf(AgentKitError);
    expect(err.code).toBe("GENAI_FIELD_MISSING");
    expect(err.field).toBe("choices");
    expect(err.message).toContain("choices");
    expect(err.message).toContain("OpenAI chat completion");
  });
});
