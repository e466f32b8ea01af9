import { afterEach, describe, expect, it } from "@jest/globals";
import { type BaseLlm, createLlmRequest, getTextOf, type LlmResponse } from "@agentkit/core";
import { AnthropicModel } from "../src/anthropic/index.js";
import { ProviderError } from "../src/errors/provider-error.js";
import { Gemini } from "../src/gemini/index.js";
import { OpenAIModel } from "../src/openai/index.js";
import { ProxyModel } from "../src/proxy/index.js";
import { createModelRegistry } from "../src/registry/create-model-registry.js";
import { FakeAnthropicServer, message, streamEvents } from "./fixtures/anthropic-server.js";
import { candidateResponse, FakeGeminiServer } from "./fixtures/gemini-server.js";
import { chunk, completion, FakeOpenAIServer } from "./fixtures/openai-server.js";

// Each model reads its vendor SDK's answers through a bounded body (maxResponseBytes): a JSON
// answer as a whole, a stream per event. Real SDKs against local servers speaking their protocols.

const LIMIT = 4096;
const big = "x".repeat(LIMIT * 2);
const request = () => createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function start<T extends { start(): Promise<string>; close(): Promise<void> }>(server: T) {
  const url = await server.start();
  closers.push(() => server.close());
  return url;
}

async function collect(model: BaseLlm, stream: boolean): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const response of model.generateContentAsync(request(), stream)) out.push(response);
  return out;
}

async function tooLarge(model: BaseLlm, stream: boolean, provider: string): Promise<void> {
  const error = await collect(model, stream).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  expect(error).toMatchObject({ category: "SERVER_ERROR", retryable: false, provider });
  expect((error as Error).message).toMatch(new RegExp(`more than ${LIMIT} bytes.*maxResponseBytes`));
}

const finalText = (responses: LlmResponse[]) => getTextOf(responses.filter((r) => !r.partial).at(-1)?.content);

describe("OpenAIModel maxResponseBytes", () => {
  it("fails a JSON answer larger than the limit, and takes one within it", async () => {
    const server = new FakeOpenAIServer();
    const baseURL = await start(server);
    const model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL, maxResponseBytes: LIMIT });
    closers.push(() => model.close());
    server.reply({ kind: "json", body: completion({ content: big }) });
    await tooLarge(model, false, "openai");
    server.reply({ kind: "json", body: completion({ content: "small" }) });
    expect(finalText(await collect(model, false))).toBe("small");
  });

  it("takes a stream larger than the limit in small events, and fails one event larger than it", async () => {
    const server = new FakeOpenAIServer();
    const baseURL = await start(server);
    const model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL, maxResponseBytes: LIMIT });
    closers.push(() => model.close());
    const words = Array.from({ length: 100 }, (_, n) => `w${n} `);
    server.reply({
      kind: "sse",
      chunks: [...words.map((content) => chunk({ content })), chunk({}, { finishReason: "stop" })],
    });
    expect(finalText(await collect(model, true))).toBe(words.join(""));
    server.reply({
      kind: "sse",
      chunks: [chunk({ content: "ok " }), chunk({ content: big }), chunk({}, { finishReason: "stop" })],
    });
    await tooLarge(model, true, "openai");
  });
});

describe("AnthropicModel maxResponseBytes", () => {
  it("fails a JSON answer larger than the limit", async () => {
    const server = new FakeAnthropicServer();
    const baseURL = await start(server);
    const model = new AnthropicModel({ model: "claude-test", apiKey: "k", baseURL, maxResponseBytes: LIMIT });
    closers.push(() => model.close());
    server.reply({ kind: "json", body: message([{ type: "text", text: big, citations: null }]) });
    await tooLarge(model, false, "anthropic");
  });

  it("fails a streamed event larger than the limit", async () => {
    const server = new FakeAnthropicServer();
    const baseURL = await start(server);
    const model = new AnthropicModel({ model: "claude-test", apiKey: "k", baseURL, maxResponseBytes: LIMIT });
    closers.push(() => model.close());
    server.reply({ kind: "sse", events: streamEvents([{ type: "text", chunks: ["ok ", big] }], "end_turn") });
    await tooLarge(model, true, "anthropic");
  });
});

describe("Gemini maxResponseBytes", () => {
  it("fails a JSON answer or a streamed event larger than the limit, and takes small ones", async () => {
    const server = new FakeGeminiServer();
    const baseUrl = await start(server);
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl, maxResponseBytes: LIMIT });
    closers.push(() => model.close());
    server.reply({ kind: "json", body: candidateResponse([{ text: big }]) });
    await tooLarge(model, false, "gemini");
    server.reply({ kind: "sse", chunks: [candidateResponse([{ text: big }])] });
    await tooLarge(model, true, "gemini");
    const many = Array.from({ length: 60 }, (_, n) => candidateResponse([{ text: `w${n} ` }]));
    server.reply({ kind: "sse", chunks: many });
    expect((await collect(model, true)).length).toBeGreaterThan(1);
  });
});

describe("ProxyModel maxResponseBytes", () => {
  it("passes the limit to the adapter of its wire format", async () => {
    const server = new FakeOpenAIServer();
    const baseURL = await start(server);
    const model = new ProxyModel({ model: "gpt-4o-mini", baseURL, maxResponseBytes: LIMIT });
    closers.push(() => model.close());
    server.reply({ kind: "json", body: completion({ content: big }) });
    await tooLarge(model, false, "openai");
  });
});

describe("createModelRegistry maxResponseBytes", () => {
  it("passes the limit to openai-compatible models, whose retry layer does not retry the failure", async () => {
    const server = new FakeOpenAIServer();
    const baseURL = await start(server);
    const registry = createModelRegistry({ openaiCompatible: { baseURL, maxResponseBytes: LIMIT }, env: {} });
    const model = registry.resolve("openai-compatible/qwen");
    server.reply(
      { kind: "json", body: completion({ content: big }) },
      { kind: "json", body: completion({ content: "a retry" }) },
    );
    await tooLarge(model, false, "openai");
    expect(server.requests).toHaveLength(1);
  });
});
