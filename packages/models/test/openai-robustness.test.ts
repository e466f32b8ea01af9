import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError, createLlmRequest, getTextOf, type LlmResponse } from "@agentkit/core";
import { ProviderError } from "../src/errors/provider-error.js";
import { GenAiFieldMissingError } from "../src/errors/genai-field-missing-error.js";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeOpenAIServer, chunk, completion } from "./fixtures/openai-server.js";
import { withForeignAbortFetch } from "./fixtures/foreign-abort-fetch.js";
import { fixtureJson, recordedReply } from "./fixtures/recorded-fixtures.js";

const ask = (abortSignal?: AbortSignal) =>
  createLlmRequest({
    contents: [{ role: "user", parts: [{ text: "Hi" }] }],
    ...(abortSignal ? { config: { abortSignal } } : {}),
  });

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (e: unknown) => e,
  );
}

let server: FakeOpenAIServer;
let baseURL: string;
const models: OpenAIModel[] = [];
const make = (extra: Partial<ConstructorParameters<typeof OpenAIModel>[0]> = {}) => {
  const model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL, ...extra });
  models.push(model);
  return model;
};

beforeEach(async () => {
  server = new FakeOpenAIServer();
  baseURL = await server.start();
});
afterEach(async () => {
  for (const model of models.splice(0)) await model.close();
  await server.close();
});

describe("OpenAIModel incomplete chat streams", () => {
  it("treats a stream that ends without finish_reason and without [DONE] as a retryable NETWORK error", async () => {
    server.reply({
      kind: "sse",
      chunks: [chunk({ role: "assistant", content: "" }), chunk({ content: "Half an ans" })],
      end: "close",
    });
    const seen: LlmResponse[] = [];
    const error = await failure(
      (async () => {
        for await (const r of make().generateContentAsync(ask(), true)) seen.push(r);
      })(),
    );
    expect(seen.map((r) => [r.partial, getTextOf(r.content)])).toEqual([[true, "Half an ans"]]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ category: "NETWORK", retryable: true, provider: "openai" });
  });

  it("still accepts a complete stream that carries finish_reason", async () => {
    server.reply({ kind: "sse", chunks: [chunk({ content: "Whole." }), chunk({}, { finishReason: "stop" })] });
    const out: LlmResponse[] = [];
    for await (const r of make().generateContentAsync(ask(), true)) out.push(r);
    expect(getTextOf(out.at(-1)!.content)).toBe("Whole.");
    expect(out.at(-1)!.partial).toBeFalsy();
  });
});

describe("OpenAIModel missing response fields", () => {
  it("raises GenAiFieldMissingError for a completion with empty choices", async () => {
    server.reply({ kind: "json", body: { ...(completion({ content: "x" }) as object), choices: [] } });
    const error = await failure(
      (async () => {
        for await (const _ of make().generateContentAsync(ask())) void _;
      })(),
    );
    expect(error).toBeInstanceOf(GenAiFieldMissingError);
    expect(error).toMatchObject({ code: "GENAI_FIELD_MISSING", field: "choices" });
  });

  it("raises GenAiFieldMissingError for a choice without a message", async () => {
    server.reply({
      kind: "json",
      body: {
        id: "c",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [{ index: 0, finish_reason: "stop", logprobs: null }],
      },
    });
    const error = await failure(
      (async () => {
        for await (const _ of make().generateContentAsync(ask())) void _;
      })(),
    );
    expect(error).toMatchObject({ code: "GENAI_FIELD_MISSING", field: "choices[0].message" });
  });

  it("raises GenAiFieldMissingError for a completed Responses API result with empty output", async () => {
    const body = { ...fixtureJson("openai/responses-parallel-function-calls.json"), output: [] };
    server.reply({ kind: "json", body });
    const error = await failure(
      (async () => {
        for await (const _ of make({ api: "responses" }).generateContentAsync(ask())) void _;
      })(),
    );
    expect(error).toBeInstanceOf(GenAiFieldMissingError);
    expect(error).toMatchObject({ field: "output" });
  });
});

describe("OpenAIModel Responses API recorded transcripts", () => {
  it("returns the parallel calls of __fixtures__/openai/responses-parallel-function-calls.json with their call ids", async () => {
    server.reply(recordedReply("openai/responses-parallel-function-calls.json"));
    const [response] = await (async () => {
      const out: LlmResponse[] = [];
      for await (const r of make({ api: "responses" }).generateContentAsync(ask())) out.push(r);
      return out;
    })();
    expect(response!.content!.parts).toEqual([
      { functionCall: { id: "call_Wk3yQd9Lr1PnT4sZ0a7bHc2F", name: "get_weather", args: { city: "Paris" } } },
      { functionCall: { id: "call_M5vXe8Gj2KqR6uNb1tYd9Zs0", name: "get_weather", args: { city: "Tokyo" } } },
    ]);
    expect(response!.usageMetadata).toMatchObject({
      promptTokenCount: 61,
      candidatesTokenCount: 46,
      totalTokenCount: 107,
    });
  });

  it("streams __fixtures__/openai/responses-stream-text.sse: partials join to the final text", async () => {
    server.reply(recordedReply("openai/responses-stream-text.sse"));
    const out: LlmResponse[] = [];
    for await (const r of make({ api: "responses" }).generateContentAsync(ask(), true)) out.push(r);
    const partials = out.filter((r) => r.partial);
    expect(partials).toHaveLength(7);
    expect(partials.map((r) => getTextOf(r.content)).join("")).toBe("Hello! How can I help?");
    expect(getTextOf(out.at(-1)!.content)).toBe("Hello! How can I help?");
    expect(out.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 8 });
  });
});

describe("OpenAIModel recorded error bodies", () => {
  it("maps __fixtures__/openai/error-400-invalid-request.json to a non-retryable CLIENT_ERROR with the API's message", async () => {
    server.reply(recordedReply("openai/error-400-invalid-request.json", { status: 400 }));
    const error = await failure(
      (async () => {
        for await (const _ of make().generateContentAsync(ask())) void _;
      })(),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ category: "CLIENT_ERROR", retryable: false, status: 400 });
    expect((error as Error).message).toContain("Invalid type for 'messages[1].content'");
  });

  it("maps __fixtures__/openai/error-401-invalid-api-key.json to AUTH_ERROR", async () => {
    server.reply(recordedReply("openai/error-401-invalid-api-key.json", { status: 401 }));
    const error = await failure(
      (async () => {
        for await (const _ of make().generateContentAsync(ask())) void _;
      })(),
    );
    expect(error).toMatchObject({ category: "AUTH_ERROR", retryable: false, status: 401 });
  });
});

describe("OpenAIModel cancellation and timeouts", () => {
  it.each([false, true])("honours request.config.abortSignal (stream: %s)", async (stream) => {
    server.reply({ kind: "hang" });
    const controller = new AbortController();
    const pending = failure(
      (async () => {
        for await (const _ of make().generateContentAsync(ask(controller.signal), stream)) void _;
      })(),
    );
    await server.hangingRequest;
    controller.abort();
    expect(await pending).toMatchObject({ category: "CANCELLED" });
    await server.hangingClosed;
  });

  it("combines request.config.abortSignal with options.signal: either one cancels", async () => {
    server.reply({ kind: "hang" });
    const fromConfig = new AbortController();
    const fromOptions = new AbortController();
    const pending = failure(
      (async () => {
        for await (const _ of make().generateContentAsync(ask(fromConfig.signal), true, { signal: fromOptions.signal }))
          void _;
      })(),
    );
    await server.hangingRequest;
    fromConfig.abort();
    expect(await pending).toMatchObject({ category: "CANCELLED" });
    expect(fromOptions.signal.aborted).toBe(false);
    await server.hangingClosed;
  });

  it("closes the HTTP stream when the consumer stops early", async () => {
    server.reply({ kind: "sse", chunks: [chunk({ content: "first " }), chunk({ content: "second" })], end: "stall" });
    for await (const r of make().generateContentAsync(ask(), true)) {
      expect(getTextOf(r.content)).toBe("first ");
      break;
    }
    await server.stalledClosed;
  });

  it("maps the timeoutMs option's expiry to a retryable TIMEOUT after one attempt", async () => {
    server.reply({ kind: "hang" });
    const error = await failure(
      (async () => {
        for await (const _ of make({ timeoutMs: 150 }).generateContentAsync(ask())) void _;
      })(),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ category: "TIMEOUT", retryable: true });
    // One attempt, no retry (on a loaded machine the timeout can even expire before it arrives).
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });

  it("reports an expired timeoutMs as TIMEOUT when the abort's rejection is not this realm's Error", async () => {
    const error = await withForeignAbortFetch(() =>
      failure(
        (async () => {
          for await (const _ of make({ timeoutMs: 100 }).generateContentAsync(ask())) void _;
        })(),
      ),
    );
    expect(error).toMatchObject({ category: "TIMEOUT", retryable: true });
  });

  it("names the invalid option field in the ConfigurationError", () => {
    expect(() => new OpenAIModel({ model: "gpt-4o-mini", timeoutMs: -5 })).toThrow(ConfigurationError);
    expect(() => new OpenAIModel({ model: "gpt-4o-mini", timeoutMs: -5 })).toThrow(/timeoutMs: /);
    expect(() => new OpenAIModel({ model: "" })).toThrow(/model: /);
  });
});
