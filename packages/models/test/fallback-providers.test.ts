import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import {
  ConfigurationError,
  createLlmRequest,
  FAILOVER_METADATA_KEY,
  getTextOf,
  InMemoryRunner,
  LlmAgent,
  MODEL_METADATA_KEY,
  USAGE_METADATA_KEY,
  type BaseLlm,
  type Event,
  type LlmResponse,
  type UsageSnapshot,
} from "@agentkit/core";
import { AnthropicModel } from "../src/anthropic/index.js";
import { createModelRegistry, ErrorCategory, FallbackModel, type FailoverEvent } from "../src/index.js";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeAnthropicServer, message } from "./fixtures/anthropic-server.js";
import { candidateResponse, errorReply, FakeGeminiServer } from "./fixtures/gemini-server.js";
import { chunk, FakeOpenAIServer } from "./fixtures/openai-server.js";

const noWait = async (_ms: number, signal?: AbortSignal) => signal?.throwIfAborted();
const openAiError = (status: number, type: string) => ({
  kind: "json" as const,
  status,
  body: { error: { message: `fake ${status}`, type } },
});
const anthropicError = (status: number, type: string) => ({
  kind: "json" as const,
  status,
  body: { type: "error", error: { type, message: `fake ${status}` } },
});

let openai: FakeOpenAIServer;
let anthropic: FakeAnthropicServer;
let gemini: FakeGeminiServer;
let env: Record<string, string>;

beforeEach(async () => {
  openai = new FakeOpenAIServer();
  anthropic = new FakeAnthropicServer();
  gemini = new FakeGeminiServer();
  const [openaiUrl, anthropicUrl, geminiUrl] = await Promise.all([openai.start(), anthropic.start(), gemini.start()]);
  env = {
    OPENAI_API_KEY: "sk-test",
    OPENAI_BASE_URL: openaiUrl,
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: anthropicUrl,
    GEMINI_API_KEY: "gm-test",
    GOOGLE_GEMINI_BASE_URL: geminiUrl,
  };
});
afterEach(async () => {
  await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
});

const ask = () => createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });

async function collect(model: BaseLlm, stream = false): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const r of model.generateContentAsync(ask(), stream)) out.push(r);
  return out;
}

async function runAgent(model: string, registry: ReturnType<typeof createModelRegistry>): Promise<Event[]> {
  const runner = new InMemoryRunner({
    agent: new LlmAgent({ name: "helper", model }),
    appName: "app",
    modelRegistry: registry,
  });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const events: Event[] = [];
  try {
    for await (const event of runner.runAsync({ userId: "u", sessionId: "s", newMessage: "Hi" })) events.push(event);
  } finally {
    await runner.close();
  }
  return events;
}

describe("FallbackModel against the fake provider servers", () => {
  it("fallback:a,b,c from the registry: OpenAI 429 and Anthropic 500 after retries, Gemini answers", async () => {
    openai.reply(openAiError(429, "rate_limit_error"), openAiError(429, "rate_limit_error"));
    anthropic.reply(anthropicError(500, "api_error"), anthropicError(500, "api_error"));
    gemini.reply({ kind: "json", body: candidateResponse([{ text: "from gemini" }]) });
    const failovers: FailoverEvent[] = [];
    const registry = createModelRegistry({
      env,
      retry: { policy: { maxAttempts: 2 }, sleep: noWait },
      fallback: { onFailover: (e) => failovers.push(e) },
    });
    const name = "fallback:gpt-4o-mini, claude-sonnet-4-6, gemini-2.5-flash";
    try {
      const events = await runAgent(name, registry);
      const answer = events.at(-1)!;
      expect(getTextOf(answer.content)).toBe("from gemini");
      expect(answer.modelVersion).toBe("gemini-2.5-flash");
      expect(answer.customMetadata?.[MODEL_METADATA_KEY]).toBe("gemini-2.5-flash");
      expect(answer.customMetadata?.[FAILOVER_METADATA_KEY]).toEqual([
        { model: "gpt-4o-mini", code: "RATE_LIMIT" },
        { model: "claude-sonnet-4-6", code: "SERVER_ERROR" },
      ]);
      // Each provider's retry policy ran before the next one got the request.
      expect([openai.requests.length, anthropic.requests.length, gemini.generateRequests.length]).toEqual([2, 2, 1]);
      expect(failovers.map((e) => [e.model, e.reason, e.next])).toEqual([
        ["gpt-4o-mini", "RATE_LIMIT", "claude-sonnet-4-6"],
        ["claude-sonnet-4-6", "SERVER_ERROR", "gemini-2.5-flash"],
      ]);
      // Usage and cost are the answering model's (shipped Gemini 2.5 Flash price: $0.30 in, $2.50 out).
      const { invocation } = answer.customMetadata![USAGE_METADATA_KEY] as UsageSnapshot;
      expect(Object.keys(invocation.models)).toEqual(["gemini-2.5-flash"]);
      expect(invocation.costUsd).toBeCloseTo((10 * 0.3 + 5 * 2.5) / 1e6, 12);
      // The registry gives the fallback the same instances as the plain names.
      const fallback = registry.resolve(name) as FallbackModel;
      expect(fallback).toBeInstanceOf(FallbackModel);
      expect(fallback.models[0]).toBe(registry.resolve("gpt-4o-mini"));
    } finally {
      await registry.close();
    }
  });

  it("fails over a request that timed out (a hanging server and a request timeout)", async () => {
    openai.reply({ kind: "hang" });
    anthropic.reply({ kind: "json", body: message([{ type: "text", text: "from claude" }]) });
    const model = new FallbackModel([
      // Long enough for the request to reach the hanging server on a loaded machine (a timeout
      // that fires while still connecting is a NETWORK failure, not a TIMEOUT).
      new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: env.OPENAI_BASE_URL!, timeoutMs: 2000 }),
      new AnthropicModel({ model: "claude-sonnet-4-6", apiKey: "sk-ant-test", baseURL: env.ANTHROPIC_BASE_URL! }),
    ]);
    try {
      const [answer] = await collect(model);
      expect(getTextOf(answer!.content)).toBe("from claude");
      expect(answer!.customMetadata?.[FAILOVER_METADATA_KEY]).toEqual([{ model: "gpt-4o-mini", code: "TIMEOUT" }]);
      await openai.hangingClosed; // the timed-out request was closed, not left open
    } finally {
      await model.close();
    }
  });

  it("does not fail over a bad request or bad credentials: the provider's error is the answer", async () => {
    openai.reply(openAiError(400, "invalid_request_error"), openAiError(401, "invalid_request_error"));
    const registry = createModelRegistry({ env, retry: { sleep: noWait } });
    try {
      const events = await runAgent("fallback:gpt-4o-mini,claude-sonnet-4-6", registry);
      expect(events.at(-1)!.errorCode).toBe(ErrorCategory.CLIENT_ERROR);
      const again = await collect(registry.resolve("fallback:gpt-4o-mini,claude-sonnet-4-6")).catch((e: unknown) => e);
      expect(again).toMatchObject({ category: ErrorCategory.AUTH_ERROR });
      expect(anthropic.requests).toHaveLength(0);
    } finally {
      await registry.close();
    }
  });

  it("streams: a Gemini 503 before any chunk fails over; an OpenAI stream cut after a chunk does not", async () => {
    gemini.reply(errorReply(503, "UNAVAILABLE", "overloaded"));
    openai.reply({ kind: "sse", chunks: [chunk({ role: "assistant", content: "Hel" })], end: "drop" });
    const registry = createModelRegistry({ env, retry: false });
    try {
      const model = registry.resolve("fallback:gemini-2.5-flash,gpt-4o-mini,claude-sonnet-4-6");
      const seen: LlmResponse[] = [];
      const error = await (async () => {
        for await (const r of model.generateContentAsync(ask(), true)) seen.push(r);
      })().catch((e: unknown) => e);
      expect(seen.map((r) => [getTextOf(r.content), r.customMetadata?.[MODEL_METADATA_KEY]])).toEqual([
        ["Hel", "gpt-4o-mini"],
      ]);
      expect(seen[0]!.customMetadata?.[FAILOVER_METADATA_KEY]).toEqual([
        { model: "gemini-2.5-flash", code: "OVERLOADED" },
      ]);
      expect(error).toMatchObject({ category: ErrorCategory.NETWORK });
      expect(anthropic.requests).toHaveLength(0);
    } finally {
      await registry.close();
    }
  });

  it("keeps a failing provider out across requests (the registry's breaker per fallback model)", async () => {
    let now = 0;
    openai.reply(openAiError(500, "server_error"));
    anthropic.reply(
      { kind: "json", body: message([{ type: "text", text: "one" }]) },
      { kind: "json", body: message([{ type: "text", text: "two" }]) },
    );
    const registry = createModelRegistry({
      env,
      retry: false,
      fallback: { circuitBreaker: { failureThreshold: 1, openMs: 60_000, now: () => now } },
    });
    try {
      const model = registry.resolve("fallback:gpt-4o-mini,claude-sonnet-4-6");
      expect(getTextOf((await collect(model))[0]!.content)).toBe("one");
      const [second] = await collect(registry.resolve("fallback:gpt-4o-mini,claude-sonnet-4-6"));
      expect(getTextOf(second!.content)).toBe("two");
      expect(second!.customMetadata?.[FAILOVER_METADATA_KEY]).toEqual([{ model: "gpt-4o-mini", code: "CIRCUIT_OPEN" }]);
      expect(openai.requests).toHaveLength(1);
      now += 60_000;
      expect((model as FallbackModel).health()[0]!.state).toBe("half-open");
    } finally {
      await registry.close();
    }
  });

  it("rejects malformed fallback names with a ConfigurationError naming the name", () => {
    const registry = createModelRegistry({ env });
    expect(registry.has("fallback:gpt-4o-mini,claude-sonnet-4-6")).toBe(true);
    // The YAML loader checks names with has(): every model of a fallback name must be known.
    expect(registry.has("fallback:gpt-4o-mini,mystery-7b")).toBe(false);
    expect(registry.has("fallback:gpt-4o-mini,,claude-sonnet-4-6")).toBe(false);
    expect(() => registry.resolve("fallback:")).toThrow(ConfigurationError);
    expect(() => registry.resolve("fallback:gpt-4o-mini,,claude-sonnet-4-6")).toThrow("no empty entries");
    expect(() => registry.resolve("fallback:gpt-4o-mini,mystery-7b")).toThrow(
      'In "fallback:gpt-4o-mini,mystery-7b": No model is registered for "mystery-7b"',
    );
  });
});
