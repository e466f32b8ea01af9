import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError, createLlmRequest, type LlmResponse } from "@agentkit/core";
import { ProviderError } from "../src/errors/provider-error.js";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeOpenAIServer, completion } from "./fixtures/openai-server.js";
import { collect } from "@agentkit/test-support/collect";

const ask = createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });
const ENV_KEYS = ["OPENAI_API_KEY", "OPENAI_BASE_URL"] as const;

describe("OpenAIModel credentials, errors and cancellation", () => {
  let server: FakeOpenAIServer;
  let baseURL: string;
  let model: OpenAIModel | undefined;
  const savedEnv: Record<string, string | undefined> = {};

  beforeEach(async () => {
    for (const key of ENV_KEYS) {
      savedEnv[key] = process.env[key];
      delete process.env[key];
    }
    server = new FakeOpenAIServer();
    baseURL = await server.start();
  });
  afterEach(async () => {
    for (const key of ENV_KEYS) {
      if (savedEnv[key] === undefined) delete process.env[key];
      else process.env[key] = savedEnv[key];
    }
    await model?.close();
    model = undefined;
    await server.close();
  });

  it("reads OPENAI_API_KEY and OPENAI_BASE_URL when no options are given", async () => {
    process.env.OPENAI_API_KEY = "sk-from-env";
    process.env.OPENAI_BASE_URL = baseURL;
    server.reply({ kind: "json", body: completion({ content: "env ok" }) });
    model = new OpenAIModel({ model: "gpt-4o-mini" });
    const [response] = await collect(model.generateContentAsync(ask));
    expect(response!.content!.parts).toEqual([{ text: "env ok" }]);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-from-env");
  });

  it("prefers options over environment variables and sends organization and headers", async () => {
    process.env.OPENAI_API_KEY = "sk-from-env";
    process.env.OPENAI_BASE_URL = "http://127.0.0.1:1/never";
    server.reply({ kind: "json", body: completion({ content: "ok" }) });
    model = new OpenAIModel({
      model: "gpt-4o-mini",
      apiKey: "sk-option",
      baseURL,
      organization: "org-1",
      headers: { "x-extra": "yes" },
    });
    await collect(model.generateContentAsync(ask));
    const headers = server.requests[0]!.headers;
    expect(headers.authorization).toBe("Bearer sk-option");
    expect(headers["openai-organization"]).toBe("org-1");
    expect(headers["x-extra"]).toBe("yes");
  });

  it("throws a ConfigurationError naming the option and the variable when no key is set", async () => {
    model = new OpenAIModel({ model: "gpt-4o-mini", baseURL });
    const error = await collect(model.generateContentAsync(ask)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain("apiKey");
    expect((error as Error).message).toContain("OPENAI_API_KEY");
    expect(server.requests).toHaveLength(0);
  });

  it("rejects invalid options with a ConfigurationError", () => {
    expect(() => new OpenAIModel({ model: "" })).toThrow(ConfigurationError);
  });

  it("uses an injected client", async () => {
    const { default: OpenAI } = await import("openai");
    server.reply({ kind: "json", body: completion({ content: "injected" }) });
    model = new OpenAIModel({
      model: "gpt-4o-mini",
      client: new OpenAI({ apiKey: "sk-injected", baseURL, maxRetries: 0 }),
    });
    const [response] = await collect(model.generateContentAsync(ask));
    expect(response!.content!.parts).toEqual([{ text: "injected" }]);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-injected");
  });

  it("surfaces a 401 as an AUTH_ERROR ProviderError without retrying", async () => {
    server.reply({
      kind: "json",
      status: 401,
      body: {
        error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" },
      },
    });
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-bad", baseURL });
    const error = await collect(model.generateContentAsync(ask)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    const providerError = error as ProviderError;
    expect(providerError.code).toBe("AUTH_ERROR");
    expect(providerError.status).toBe(401);
    expect(providerError.provider).toBe("openai");
    expect(providerError.retryable).toBe(false);
    expect(providerError.message).toContain("OPENAI_API_KEY");
    expect(server.requests).toHaveLength(1);
  });

  it("surfaces a 500 as a retryable SERVER_ERROR with the Retry-After wait, after one attempt", async () => {
    server.reply({
      kind: "json",
      status: 500,
      headers: { "retry-after": "2" },
      body: { error: { message: "The server had an error", type: "server_error" } },
    });
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL });
    const error = (await collect(model.generateContentAsync(ask, true)).then(
      () => undefined,
      (e: unknown) => e,
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe("SERVER_ERROR");
    expect(error.status).toBe(500);
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(2000);
    expect(server.requests).toHaveLength(1);
  });

  it("surfaces a 429 as RATE_LIMIT", async () => {
    server.reply({
      kind: "json",
      status: 429,
      headers: { "retry-after-ms": "150" },
      body: { error: { message: "slow down", type: "requests" } },
    });
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL });
    const error = (await collect(model.generateContentAsync(ask)).then(
      () => undefined,
      (e: unknown) => e,
    )) as ProviderError;
    expect(error.code).toBe("RATE_LIMIT");
    expect(error.retryAfterMs).toBe(150);
  });

  it("surfaces a 400 context-length error as CONTEXT_LENGTH", async () => {
    server.reply({
      kind: "json",
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 128000 tokens.",
          type: "invalid_request_error",
          code: "context_length_exceeded",
        },
      },
    });
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL });
    const error = (await collect(model.generateContentAsync(ask)).then(
      () => undefined,
      (e: unknown) => e,
    )) as ProviderError;
    expect(error.code).toBe("CONTEXT_LENGTH");
    expect(error.retryable).toBe(false);
  });

  it("surfaces an unreachable server as a NETWORK error", async () => {
    const closed = new FakeOpenAIServer();
    const deadURL = await closed.start();
    await closed.close();
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: deadURL });
    const error = (await collect(model.generateContentAsync(ask)).then(
      () => undefined,
      (e: unknown) => e,
    )) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe("NETWORK");
    expect(error.retryable).toBe(true);
  });

  it("raises a typed error when the stream breaks after partials were yielded", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        {
          id: "c",
          object: "chat.completion.chunk",
          created: 1,
          model: "m",
          choices: [{ index: 0, delta: { content: "Hal" }, finish_reason: null }],
        },
      ],
      end: "drop",
    });
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL });
    const seen: LlmResponse[] = [];
    const error = await (async () => {
      for await (const r of model!.generateContentAsync(ask, true)) seen.push(r);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(seen.map((r) => r.partial)).toEqual([true]);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe("NETWORK");
  });

  it("raises a typed error for an error event inside the stream", async () => {
    server.reply({
      kind: "sse",
      chunks: [],
      end: { error: { message: "The server had an error while processing your request.", type: "server_error" } },
    });
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL });
    const error = await collect(model.generateContentAsync(ask, true)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain("The server had an error");
    expect((error as ProviderError).code).toBe("SERVER_ERROR");
    expect((error as ProviderError).retryable).toBe(true);
  });

  it.each([false, true])("stops the request when the signal aborts (stream: %s)", async (stream) => {
    server.reply({ kind: "hang" });
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL });
    const controller = new AbortController();
    const pending = collect(model.generateContentAsync(ask, stream, { signal: controller.signal })).then(
      () => undefined,
      (e: unknown) => e,
    );
    await server.hangingRequest;
    controller.abort();
    const error = (await pending) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe("CANCELLED");
    await server.hangingClosed;
  });
});
