import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import Anthropic from "@anthropic-ai/sdk";
import { ConfigurationError, createLlmRequest, getTextOf, type LlmResponse } from "@agentkit/core";
import { AnthropicModel } from "../src/anthropic/index.js";
import { ProviderError } from "../src/errors/provider-error.js";
import { FakeAnthropicServer, message, streamEvents } from "./fixtures/anthropic-server.js";
import { withForeignAbortFetch } from "./fixtures/foreign-abort-fetch.js";

let server: FakeAnthropicServer;
let baseURL: string;
const savedEnv = { key: process.env.ANTHROPIC_API_KEY, url: process.env.ANTHROPIC_BASE_URL };

beforeEach(async () => {
  delete process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_BASE_URL;
  server = new FakeAnthropicServer();
  baseURL = await server.start();
});
afterEach(async () => {
  restore("ANTHROPIC_API_KEY", savedEnv.key);
  restore("ANTHROPIC_BASE_URL", savedEnv.url);
  await server.close();
});

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

const hi = () => createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });
const ok = () => ({ kind: "json" as const, body: message([{ type: "text", text: "ok", citations: null }]) });

async function collect(model: AnthropicModel, stream = false, signal?: AbortSignal): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const r of model.generateContentAsync(hi(), stream, signal ? { signal } : {})) out.push(r);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("AnthropicModel credentials and options", () => {
  it("reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL when no options are given", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-env";
    process.env.ANTHROPIC_BASE_URL = baseURL;
    server.reply(ok());
    const [response] = await collect(new AnthropicModel({ model: "claude-test" }));
    expect(getTextOf(response!.content)).toBe("ok");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-env");
  });

  it("prefers the options over the environment and sends extra headers", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-env";
    process.env.ANTHROPIC_BASE_URL = "http://127.0.0.1:1";
    server.reply(ok());
    await collect(
      new AnthropicModel({ model: "claude-test", apiKey: "sk-option", baseURL, headers: { "x-trace": "t1" } }),
    );
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-option");
    expect(server.requests[0]!.headers["x-trace"]).toBe("t1");
  });

  it("creates the client lazily and names both settings when the key is missing", async () => {
    const model = new AnthropicModel({ model: "claude-test", baseURL });
    const error = await collect(model).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain("apiKey");
    expect((error as Error).message).toContain("ANTHROPIC_API_KEY");
    expect(server.requests).toHaveLength(0);
  });

  it("rejects invalid options with a ConfigurationError naming the field", () => {
    expect(() => new AnthropicModel({ model: "claude-test", maxTokens: -1 })).toThrow(/maxTokens/);
    expect(() => new AnthropicModel({ model: "" })).toThrow(ConfigurationError);
  });

  it("uses an injected client and keeps it after close()", async () => {
    const client = new Anthropic({ apiKey: "sk-injected", baseURL, maxRetries: 0 });
    const model = new AnthropicModel({ model: "claude-test", client });
    server.reply(ok(), ok());
    await collect(model);
    await model.close();
    await collect(model);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-injected", "Bearer sk-injected"]);
  });

  it("creates a new client after close() (picking up changed settings)", async () => {
    process.env.ANTHROPIC_API_KEY = "sk-one";
    server.reply(ok(), ok());
    const model = new AnthropicModel({ model: "claude-test", baseURL });
    await collect(model);
    await model.close();
    process.env.ANTHROPIC_API_KEY = "sk-two";
    await collect(model);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-one", "Bearer sk-two"]);
  });
});

describe("AnthropicModel errors", () => {
  const model = () => new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL });

  it("maps 401 to a non-retryable AUTH_ERROR without SDK retries", async () => {
    server.reply({
      kind: "json",
      status: 401,
      body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
    });
    const error = await failure(collect(model()));
    expect(error).toMatchObject({
      category: "AUTH_ERROR",
      code: "AUTH_ERROR",
      status: 401,
      provider: "anthropic",
      retryable: false,
    });
    expect(error.message).toContain("invalid x-api-key");
    expect(error.cause).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(server.requests).toHaveLength(1);
  });

  it("maps 529 to a retryable OVERLOADED error carrying retry-after", async () => {
    server.reply({
      kind: "json",
      status: 529,
      headers: { "retry-after": "3" },
      body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
    const error = await failure(collect(model(), true));
    expect(error).toMatchObject({ category: "OVERLOADED", status: 529, retryable: true, retryAfterMs: 3000 });
    expect(server.requests).toHaveLength(1);
  });

  it("maps 429 to RATE_LIMIT and 400 prompt-too-long to CONTEXT_LENGTH", async () => {
    server.reply(
      {
        kind: "json",
        status: 429,
        headers: { "retry-after-ms": "250" },
        body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
      },
      {
        kind: "json",
        status: 400,
        body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 300000 tokens" } },
      },
    );
    expect(await failure(collect(model()))).toMatchObject({
      category: "RATE_LIMIT",
      retryAfterMs: 250,
      retryable: true,
    });
    expect(await failure(collect(model()))).toMatchObject({
      category: "CONTEXT_LENGTH",
      status: 400,
      retryable: false,
    });
  });
});

describe("AnthropicModel cancellation", () => {
  const model = () => new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL });

  it("aborts a pending request through the signal", async () => {
    server.reply({ kind: "hang" });
    const controller = new AbortController();
    const pending = collect(model(), false, controller.signal);
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await failure(pending)).toMatchObject({ category: "CANCELLED" });
    await server.stalledClosed;
  });

  it("honours request.config.abortSignal when no signal option is given", async () => {
    server.reply({ kind: "hang" });
    const controller = new AbortController();
    const request = createLlmRequest({
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      config: { abortSignal: controller.signal },
    });
    const pending = (async () => {
      for await (const _ of model().generateContentAsync(request)) void _;
    })();
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await failure(pending)).toMatchObject({ category: "CANCELLED" });
  });

  it("maps the timeoutMs option's expiry to a retryable TIMEOUT", async () => {
    server.reply({ kind: "hang" });
    const slow = new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL, timeoutMs: 100 });
    expect(await failure(collect(slow))).toMatchObject({ category: "TIMEOUT", retryable: true });
    // One attempt, no retry (on a loaded machine the timeout can even expire before it arrives).
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });

  it("reports an expired timeoutMs as TIMEOUT when the abort's rejection is not this realm's Error", async () => {
    const slow = new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL, timeoutMs: 100 });
    const error = await withForeignAbortFetch(() => failure(collect(slow)));
    expect(error).toMatchObject({ category: "TIMEOUT", retryable: true });
  });

  it("aborts a stream mid-way, after partial chunks", async () => {
    const events = streamEvents([{ type: "text", chunks: ["one ", "two"] }], "end_turn").slice(0, 3);
    server.reply({ kind: "sse", events, hangAfter: true });
    const controller = new AbortController();
    const seen: LlmResponse[] = [];
    const run = (async () => {
      for await (const r of model().generateContentAsync(hi(), true, { signal: controller.signal })) {
        seen.push(r);
        controller.abort();
      }
    })();
    expect(await failure(run)).toMatchObject({ category: "CANCELLED" });
    expect(seen.map((r) => getTextOf(r.content))).toEqual(["one "]);
    await server.stalledClosed;
  });

  it("closes the HTTP stream when the consumer stops early", async () => {
    const events = streamEvents([{ type: "text", chunks: ["one ", "two"] }], "end_turn").slice(0, 3);
    server.reply({ kind: "sse", events, hangAfter: true });
    for await (const r of model().generateContentAsync(hi(), true)) {
      expect(getTextOf(r.content)).toBe("one ");
      break;
    }
    await server.stalledClosed;
  });
});

describe("AnthropicModel cut streams", () => {
  it("treats a stream that ends without message_stop as a retryable network error, not a complete response", async () => {
    const events = streamEvents([{ type: "text", chunks: ["one ", "two"] }], "end_turn").slice(0, 4);
    server.reply({ kind: "sse", events });
    const model = new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL });
    const seen: LlmResponse[] = [];
    const run = (async () => {
      for await (const r of model.generateContentAsync(hi(), true)) seen.push(r);
    })();
    expect(await failure(run)).toMatchObject({ category: "NETWORK", retryable: true });
    expect(seen.every((r) => r.partial)).toBe(true);
  });
});
