import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "@jest/globals";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import { createLlmRequest, getTextOf, type BaseLlm, type LlmResponse } from "@agentkit/core";
import { AiSdkModel } from "../src/ai-sdk/index.js";
import { AnthropicModel } from "../src/anthropic/index.js";
import { FallbackModel } from "../src/fallback/fallback-model.js";
import { Gemini } from "../src/gemini/index.js";
import { LangChainModel } from "../src/langchain/index.js";
import { OpenAIModel } from "../src/openai/index.js";
import { RetryingModel } from "../src/retry/retrying-model.js";
import { FakeAnthropicServer, message } from "./fixtures/anthropic-server.js";
import { candidateResponse, FakeGeminiServer } from "./fixtures/gemini-server.js";
import { FakeOpenAIServer } from "./fixtures/openai-server.js";

/** What the fake servers share: scripted replies, one of them a response held open. */
interface WireServer {
  start(): Promise<string>;
  reply(reply: { kind: "hang" }): void;
  readonly stalledRequest: Promise<void>;
  readonly stalledClosed: Promise<void>;
  close(): Promise<void>;
}

interface Adapter {
  name: string;
  server: () => WireServer;
  model: (baseUrl: string) => BaseLlm;
}

const gemini = (baseUrl: string) => new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
const anthropic = (baseURL: string) => new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL });

const adapters: Adapter[] = [
  { name: "Gemini", server: () => new FakeGeminiServer(), model: gemini },
  { name: "AnthropicModel", server: () => new FakeAnthropicServer(), model: anthropic },
  {
    name: "OpenAIModel",
    server: () => new FakeOpenAIServer(),
    model: (baseURL) => new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL }),
  },
  {
    name: "AiSdkModel",
    server: () => new FakeOpenAIServer(),
    model: (baseURL) => new AiSdkModel({ model: createOpenAI({ baseURL, apiKey: "sk-test" }).chat("gpt-test") }),
  },
  {
    name: "LangChainModel",
    server: () => new FakeOpenAIServer(),
    model: (baseURL) =>
      new LangChainModel({
        model: new ChatOpenAI({ model: "gpt-test", apiKey: "sk-test", configuration: { baseURL }, maxRetries: 0 }),
      }),
  },
  {
    name: "RetryingModel (over AnthropicModel)",
    server: () => new FakeAnthropicServer(),
    model: (baseURL) => new RetryingModel(anthropic(baseURL)),
  },
  {
    name: "FallbackModel (over Gemini)",
    server: () => new FakeGeminiServer(),
    model: (baseUrl) => new FallbackModel([gemini(baseUrl)]),
  },
];

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const closable of open.splice(0).reverse()) await closable.close();
});

async function started(adapter: Adapter): Promise<{ server: WireServer; model: BaseLlm }> {
  const server = adapter.server();
  open.push(server);
  const model = adapter.model(await server.start());
  open.push(model);
  return { server, model };
}

const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

describe("request.config.abortSignal cancels a call that also has the caller's signal (options.signal)", () => {
  const cases = adapters.flatMap((adapter) => [false, true].map((stream) => [adapter.name, stream, adapter] as const));

  it.each(cases)("%s (stream: %s)", async (_name, stream, adapter) => {
    const { server, model } = await started(adapter);
    server.reply({ kind: "hang" });
    // The run's signal: it outlives the call and is never aborted here.
    const run = new AbortController();
    const fromConfig = new AbortController();
    const request = createLlmRequest({
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      config: { abortSignal: fromConfig.signal },
    });
    const pending = (async () => {
      for await (const _ of model.generateContentAsync(request, stream, { signal: run.signal })) void _;
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    await server.stalledRequest;
    fromConfig.abort();
    expect(await pending).toMatchObject({ category: "CANCELLED" });
    await server.stalledClosed;
    expect(run.signal.aborted).toBe(false);
    // Neither signal keeps anything of the call.
    expect(listeners(run.signal)).toBe(0);
    expect(listeners(fromConfig.signal)).toBe(0);
  });
});

describe("the call's combined signal once the call has ended", () => {
  it("leaves no listener on either signal after a completed call (Gemini, AnthropicModel)", async () => {
    const geminiServer = new FakeGeminiServer();
    const anthropicServer = new FakeAnthropicServer();
    open.push(geminiServer, anthropicServer);
    const models = [gemini(await geminiServer.start()), anthropic(await anthropicServer.start())];
    open.push(...models);
    geminiServer.reply({ kind: "json", body: candidateResponse([{ text: "ok" }]) });
    anthropicServer.reply({ kind: "json", body: message([{ type: "text", text: "ok", citations: null }]) });
    const run = new AbortController();
    const fromConfig = new AbortController();
    for (const model of models) {
      const request = createLlmRequest({
        contents: [{ role: "user", parts: [{ text: "Hi" }] }],
        config: { abortSignal: fromConfig.signal },
      });
      const out: LlmResponse[] = [];
      for await (const r of model.generateContentAsync(request, false, { signal: run.signal })) out.push(r);
      expect(getTextOf(out.at(-1)?.content)).toBe("ok");
      expect(listeners(run.signal)).toBe(0);
      expect(listeners(fromConfig.signal)).toBe(0);
    }
  });
});
