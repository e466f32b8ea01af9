import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest, getTextOf } from "@agentkit/core";
import { ProviderError, RetryingModel, type RetryEvent } from "../src/index.js";
import { Gemini } from "../src/gemini/index.js";
import { candidateResponse, errorReply, FakeGeminiServer, fixture } from "./fixtures/gemini-server.js";
import { collect } from "@agentkit/test-support/collect";

let server: FakeGeminiServer;
let baseUrl: string;

beforeEach(async () => {
  server = new FakeGeminiServer();
  baseUrl = await server.start();
});
afterEach(async () => {
  await server.close();
});

const request = () => createLlmRequest({ contents: [{ role: "user", parts: [{ text: "hi" }] }] });

async function failure(model: Gemini, stream = false): Promise<ProviderError> {
  const error = await collect(model.generateContentAsync(request(), stream)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("Gemini error mapping", () => {
  it("maps 429 RESOURCE_EXHAUSTED with Retry-After to a retryable RATE_LIMIT with the wait", async () => {
    server.reply(
      errorReply(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", {
        headers: { "retry-after": "7" },
      }),
    );
    const error = await failure(new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl }));
    expect(error).toMatchObject({
      category: "RATE_LIMIT",
      status: 429,
      retryable: true,
      retryAfterMs: 7000,
      provider: "gemini",
    });
    expect(error.message).toMatch(/RESOURCE_EXHAUSTED/);
  });

  it("reads the wait from a RetryInfo detail when there is no Retry-After header", async () => {
    server.reply({ kind: "json", status: 429, body: fixture("error-429-retry-info.json") });
    const error = await failure(new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl }));
    expect(error).toMatchObject({
      category: "RATE_LIMIT",
      retryable: true,
      retryAfterMs: 2000,
      strategy: "EXPONENTIAL_BACKOFF",
    });
  });

  it("does not retry an exhausted per-day quota", async () => {
    server.reply(
      errorReply(429, "RESOURCE_EXHAUSTED", "Quota exceeded", {
        details: [
          {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            violations: [{ quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier" }],
          },
        ],
      }),
    );
    const error = await failure(new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl }));
    expect(error).toMatchObject({ category: "RATE_LIMIT", retryable: false });
  });

  it("maps 401 and 403 to AUTH_ERROR naming the key variables", async () => {
    server.reply(errorReply(401, "UNAUTHENTICATED", "API key not valid. Please pass a valid API key."), {
      kind: "json",
      status: 403,
      body: fixture("error-403-api-key.json"),
    });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "bad", baseUrl });
    const unauthenticated = await failure(model);
    expect(unauthenticated).toMatchObject({ category: "AUTH_ERROR", status: 401, retryable: false });
    expect(unauthenticated.message).toMatch(/GOOGLE_API_KEY or GEMINI_API_KEY/);
    expect(await failure(model)).toMatchObject({ category: "AUTH_ERROR", status: 403 });
  });

  it("maps 400 INVALID_ARGUMENT to a final CLIENT_ERROR with Google's message", async () => {
    server.reply({ kind: "json", status: 400, body: fixture("error-400-invalid-argument.json") });
    const error = await failure(new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl }));
    expect(error).toMatchObject({ category: "CLIENT_ERROR", status: 400, retryable: false });
    expect(error.message).toMatch(/Invalid function name/);
  });

  it("maps a too-long prompt to CONTEXT_LENGTH", async () => {
    server.reply(
      errorReply(
        400,
        "INVALID_ARGUMENT",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
      ),
    );
    const error = await failure(new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl }));
    expect(error.category).toBe("CONTEXT_LENGTH");
  });

  it("maps 500 to SERVER_ERROR and 503 UNAVAILABLE to OVERLOADED, both retryable", async () => {
    server.reply(errorReply(500, "INTERNAL", "An internal error has occurred."), {
      kind: "json",
      status: 503,
      body: fixture("error-503-overloaded.json"),
    });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    expect(await failure(model)).toMatchObject({ category: "SERVER_ERROR", status: 500, retryable: true });
    const overloaded = await failure(model);
    expect(overloaded).toMatchObject({ category: "OVERLOADED", status: 503, retryable: true });
    expect(overloaded.message).toMatch(/overloaded/);
  });

  it("maps an error event inside the SSE stream", async () => {
    server.reply({
      kind: "sse",
      chunks: [{ error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } }],
    });
    const error = await failure(new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl }), true);
    expect(error).toMatchObject({ category: "OVERLOADED", status: 503 });
  });

  it("maps an unreachable server to a retryable NETWORK error", async () => {
    await server.close();
    const error = await failure(new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl }));
    expect(error).toMatchObject({ category: "NETWORK", retryable: true });
    server = new FakeGeminiServer();
    await server.start();
  });
});

describe("Gemini retries", () => {
  it("retries a 429 (Retry-After: 0) and a 503 with its own retry option, then succeeds", async () => {
    server.reply(
      errorReply(429, "RESOURCE_EXHAUSTED", "slow down", { headers: { "retry-after": "0" } }),
      { kind: "json", status: 503, body: fixture("error-503-overloaded.json") },
      { kind: "json", body: candidateResponse([{ text: "third time" }]) },
    );
    const model = new Gemini({
      model: "gemini-2.5-flash",
      apiKey: "k",
      baseUrl,
      retry: { maxAttempts: 3, initialDelayMs: 1, jitter: 0 },
    });
    const [response] = await collect(model.generateContentAsync(request()));
    expect(getTextOf(response!.content)).toBe("third time");
    expect(server.generateRequests).toHaveLength(3);
  });

  it("does not retry by default (the registry's RetryingModel does)", async () => {
    server.reply(errorReply(500, "INTERNAL", "boom"), { kind: "json", body: candidateResponse([{ text: "never" }]) });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    await failure(model);
    expect(server.generateRequests).toHaveLength(1);
  });

  it("retries through RetryingModel with the Retry-After wait from the Gemini error", async () => {
    server.reply(errorReply(429, "RESOURCE_EXHAUSTED", "slow down", { headers: { "retry-after": "3" } }), {
      kind: "json",
      body: candidateResponse([{ text: "ok" }]),
    });
    const events: RetryEvent[] = [];
    const waits: number[] = [];
    const model = new RetryingModel(new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl }), {
      onRetry: (e) => events.push(e),
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const [response] = await collect(model.generateContentAsync(request()));
    expect(getTextOf(response!.content)).toBe("ok");
    expect(events.map((e) => e.error.category)).toEqual(["RATE_LIMIT"]);
    expect(waits).toEqual([3000]);
  });

  it("does not retry a stream that failed after yielding partials", async () => {
    server.reply(
      {
        kind: "sse",
        chunks: [{ candidates: [{ content: { role: "model", parts: [{ text: "partial" }] }, index: 0 }] }],
        dropAfter: true,
      },
      { kind: "json", body: candidateResponse([{ text: "should not be requested" }]) },
    );
    const model = new Gemini({
      model: "gemini-2.5-flash",
      apiKey: "k",
      baseUrl,
      retry: { maxAttempts: 3, initialDelayMs: 1 },
    });
    await expect(collect(model.generateContentAsync(request(), true))).rejects.toMatchObject({ category: "NETWORK" });
    expect(server.generateRequests).toHaveLength(1);
  });
});
