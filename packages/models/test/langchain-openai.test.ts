import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { ChatOpenAI } from "@langchain/openai";
import {
  createLlmRequest,
  FunctionTool,
  getTextOf,
  InMemoryRunner,
  LlmAgent,
  StreamingMode,
  type Event,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { LangChainModel, type FrameworkCallMetrics } from "../src/langchain/index.js";
import { ProviderError } from "../src/errors/provider-error.js";
import { FakeOpenAIServer, chunk, completion } from "./fixtures/openai-server.js";
import { recordedReply } from "./fixtures/recorded-fixtures.js";
import { collect } from "@agentkit/test-support/collect";

const ask = (init: Partial<LlmRequest> = {}) =>
  createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }], ...init });
const weather = {
  functionDeclarations: [
    {
      name: "weather",
      description: "Weather of a city",
      parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ],
};

describe("LangChainModel over a real ChatOpenAI against the fake OpenAI server", () => {
  let server: FakeOpenAIServer;
  let baseURL: string;
  const chat = () =>
    new ChatOpenAI({ model: "gpt-test", apiKey: "sk-test", configuration: { baseURL }, maxRetries: 0 });

  beforeEach(async () => {
    server = new FakeOpenAIServer();
    baseURL = await server.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it("applies the sampling properties (request config first) and returns text, usage, finish reason", async () => {
    server.reply({
      kind: "json",
      body: completion(
        { content: "Hello there" },
        { usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } },
      ),
    });
    const model = new LangChainModel({ model: chat(), temperature: 0.3, maxTokens: 50, topP: 0.5 });
    expect(model.model).toBe("langchain/openai");
    const out = await collect(
      model.generateContentAsync(ask({ config: { systemInstruction: "Be brief.", topP: 0.25 } })),
    );
    expect(out).toEqual([
      {
        content: { role: "model", parts: [{ text: "Hello there" }] },
        finishReason: "STOP",
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 7, totalTokenCount: 19 },
        modelVersion: "gpt-4o-mini-2024-07-18",
      },
    ]);
    const body = server.lastBody;
    expect(body).toMatchObject({ model: "gpt-test", temperature: 0.3, top_p: 0.25 });
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(50);
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
  });

  it("runs a tool round trip with two parallel calls through LlmAgent + Runner", async () => {
    const cities: string[] = [];
    const tool = new FunctionTool({
      name: "weather",
      description: "Weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: (args) => {
        cities.push(String(args.city));
        return { city: args.city, sky: args.city === "Oslo" ? "snow" : "sun" };
      },
    });
    server.reply(
      {
        kind: "json",
        body: completion(
          {
            content: null,
            tool_calls: [
              { id: "call_o", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
              { id: "call_r", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } },
            ],
          },
          { finishReason: "tool_calls" },
        ),
      },
      { kind: "json", body: completion({ content: "Snow in Oslo, sun in Rome." }) },
    );
    const agent = new LlmAgent({
      name: "assistant",
      model: new LangChainModel({ model: chat() }),
      instruction: "Answer about the weather.",
      tools: [tool],
    });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    const events: Event[] = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: "Weather in Oslo and Rome?",
        runConfig: { autoCreateSession: true },
      }),
    );
    expect(cities.sort()).toEqual(["Oslo", "Rome"]);
    const callEvent = events.find((e) => e.content?.parts?.some((p) => p.functionCall))!;
    expect(callEvent.content!.parts!.map((p) => p.functionCall?.id)).toEqual(["call_o", "call_r"]);
    expect(getTextOf(events.at(-1)!.content)).toBe("Snow in Oslo, sun in Rome.");

    const first = server.requests[0]!.body as { tools: Array<{ function: { name: string } }> };
    expect(first.tools.map((t) => t.function.name)).toEqual(["weather"]);
    const messages = server.requests[1]!.body.messages as Array<{
      role: string;
      tool_call_id?: string;
      content?: unknown;
      tool_calls?: unknown[];
    }>;
    expect(messages[0]).toMatchObject({
      role: "system",
      content: expect.stringContaining("Answer about the weather."),
    });
    expect(messages.find((m) => m.role === "assistant")!.tool_calls).toHaveLength(2);
    expect(messages.filter((m) => m.role === "tool")).toEqual([
      expect.objectContaining({ tool_call_id: "call_o", content: '{"city":"Oslo","sky":"snow"}' }),
      expect.objectContaining({ tool_call_id: "call_r", content: '{"city":"Rome","sky":"sun"}' }),
    ]);
  });

  it("forces a tool with toolConfig ANY + one allowed name (tool_choice)", async () => {
    server.reply({ kind: "json", body: completion({ content: "ok" }) });
    await collect(
      new LangChainModel({ model: chat() }).generateContentAsync(
        ask({
          config: {
            tools: [weather],
            toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["weather"] } },
          },
        }),
      ),
    );
    expect(server.lastBody.tool_choice).toEqual({ type: "function", function: { name: "weather" } });
  });

  it("streams text partials whose join is the final text, in SSE mode through the Runner", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Sunny " }),
        chunk({ content: "today." }),
        chunk({}, { finishReason: "stop" }),
        chunk({}, { noChoices: true, usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }),
      ],
    });
    const agent = new LlmAgent({ name: "assistant", model: new LangChainModel({ model: chat() }) });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    const events = await collect(
      runner.runAsync({
        userId: "u",
        sessionId: "s",
        newMessage: "Weather?",
        runConfig: { streamingMode: StreamingMode.SSE, autoCreateSession: true },
      }),
    );
    const modelEvents = events.filter((e) => e.author === "assistant");
    const partials = modelEvents.filter((e) => e.partial === true).map((e) => getTextOf(e.content));
    expect(partials.join("")).toBe("Sunny today.");
    expect(partials.length).toBeGreaterThanOrEqual(2);
    expect(modelEvents.at(-1)!.partial).toBeFalsy();
    expect(getTextOf(modelEvents.at(-1)!.content)).toBe("Sunny today.");
    expect(modelEvents.at(-1)!.usageMetadata).toMatchObject({
      promptTokenCount: 3,
      candidatesTokenCount: 4,
      totalTokenCount: 7,
    });
    expect(server.lastBody.stream).toBe(true);
  });

  it("assembles streamed tool-call chunks of parallel calls", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        chunk({
          role: "assistant",
          content: null,
          tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "weather", arguments: "" } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({
          tool_calls: [
            { index: 1, id: "call_b", type: "function", function: { name: "weather", arguments: '{"city"' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: ':"Rome"}' } }] }),
        chunk({}, { finishReason: "tool_calls" }),
      ],
    });
    const out: LlmResponse[] = await collect(
      new LangChainModel({ model: chat() }).generateContentAsync(ask({ config: { tools: [weather] } }), true),
    );
    expect(out.filter((r) => r.partial)).toEqual([]);
    expect(out.at(-1)!.content!.parts).toEqual([
      { functionCall: { id: "call_a", name: "weather", args: { city: "Oslo" } } },
      { functionCall: { id: "call_b", name: "weather", args: { city: "Rome" } } },
    ]);
    expect(out.at(-1)!.finishReason).toBe("STOP");
  });

  it("asks for structured output through withStructuredOutput and answers with the JSON", async () => {
    server.reply({ kind: "json", body: completion({ content: '{"city":"Oslo","temp":5}' }) });
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, temp: { type: "number" } },
      required: ["city", "temp"],
      additionalProperties: false,
    };
    const [response] = await collect(
      new LangChainModel({ model: chat() }).generateContentAsync(
        ask({ config: { responseMimeType: "application/json", responseJsonSchema: schema } }),
      ),
    );
    expect(JSON.parse(getTextOf(response!.content))).toEqual({ city: "Oslo", temp: 5 });
    expect(response!.usageMetadata?.totalTokenCount).toBe(15);
    expect(server.lastBody.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "response", schema: expect.objectContaining({ required: ["city", "temp"] }) },
    });
  });

  it.each([
    [429, "RATE_LIMIT", { "retry-after": "2" }, 2000],
    [401, "AUTH_ERROR", {}, undefined],
    [500, "SERVER_ERROR", {}, undefined],
  ] as const)("maps HTTP %i to %s", async (status, category, headers, retryAfterMs) => {
    server.reply({ kind: "json", status, headers, body: { error: { message: "nope", type: "x" } } });
    const error = await collect(new LangChainModel({ model: chat() }).generateContentAsync(ask())).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ category, status, provider: "openai" });
    expect((error as ProviderError).retryAfterMs).toBe(retryAfterMs);
  });

  it("maps a connection dropped mid-stream to a retryable NETWORK error after the partials", async () => {
    server.reply({ kind: "sse", chunks: [chunk({ content: "Hel" })], end: "drop" });
    const seen: LlmResponse[] = [];
    const error = await (async () => {
      for await (const r of new LangChainModel({ model: chat() }).generateContentAsync(ask(), true)) seen.push(r);
    })().catch((e: unknown) => e);
    expect(seen.map((r) => getTextOf(r.content))).toEqual(["Hel"]);
    expect(error).toMatchObject({ category: "NETWORK", retryable: true });
  });

  it("maps a 400 client error (__fixtures__/openai/error-400-invalid-request.json) to a final CLIENT_ERROR with the API's message", async () => {
    server.reply(recordedReply("openai/error-400-invalid-request.json", { status: 400 }));
    const error = await collect(new LangChainModel({ model: chat() }).generateContentAsync(ask())).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ category: "CLIENT_ERROR", retryable: false, status: 400 });
    expect((error as Error).message).toContain("Invalid type for 'messages[1].content'");
    expect(server.requests).toHaveLength(1);
  });

  it("cancels a hanging stream through the AbortSignal", async () => {
    server.reply({ kind: "hang" });
    const controller = new AbortController();
    const pending = collect(
      new LangChainModel({ model: chat() }).generateContentAsync(ask(), true, { signal: controller.signal }),
    ).catch((e: unknown) => e);
    await server.hangingRequest;
    controller.abort();
    expect(await pending).toMatchObject({ category: "CANCELLED" });
    await server.hangingClosed;
  });

  it("validation failFast names the part it cannot convert; observability reports calls", async () => {
    const records: FrameworkCallMetrics[] = [];
    const strict = new LangChainModel({
      model: chat(),
      validation: { enabled: true },
      observability: { enabled: true, includeContent: true },
      onMetrics: (m) => records.push(m),
    });
    const request = createLlmRequest({
      contents: [{ role: "user", parts: [{ text: "x" }, { inlineData: { mimeType: "audio/wav", data: "UklG" } }] }],
    });
    await expect(collect(strict.generateContentAsync(request))).rejects.toMatchObject({
      code: "MESSAGE_CONVERSION_ERROR",
      issues: [{ where: "contents[0].parts[1]" }],
    });
    expect(server.requests).toHaveLength(0);
    expect(records[0]).toMatchObject({
      adapter: "LangChainModel",
      outcome: "error",
      error: { code: "MESSAGE_CONVERSION_ERROR" },
    });

    server.reply({ kind: "json", body: completion({ content: "fine" }) });
    await collect(strict.generateContentAsync(ask()));
    expect(records[1]).toMatchObject({
      outcome: "success",
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      response: { role: "model", parts: [{ text: "fine" }] },
    });
    expect(records[1]!.latencyMs).toBeGreaterThan(0);
  });
});
