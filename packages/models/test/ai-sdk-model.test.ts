import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createOpenAI } from "@ai-sdk/openai";
import { createLlmRequest, getTextOf, type LlmRequest, type LlmResponse } from "@agentkit/core";
import { AiSdkModel, type FrameworkCallMetrics } from "../src/ai-sdk/index.js";
import { ProviderError } from "../src/errors/provider-error.js";
import { FakeOpenAIServer, chunk, completion } from "./fixtures/openai-server.js";
import { recordedReply } from "./fixtures/recorded-fixtures.js";
import { collect } from "@agentkit/test-support/collect";

const ask = (init: Partial<LlmRequest> = {}) =>
  createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }], ...init });

const weatherTool = {
  functionDeclarations: [
    {
      name: "weather",
      description: "Weather of a city",
      parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    {
      name: "time",
      description: "Local time",
      parameters: { type: "OBJECT", properties: { zone: { type: "STRING", nullable: true } } },
    },
  ],
};

describe("AiSdkModel over @ai-sdk/openai (chat) against a fake OpenAI server", () => {
  let server: FakeOpenAIServer;
  let baseURL: string;
  const metrics: FrameworkCallMetrics[] = [];
  const make = (extra: Partial<ConstructorParameters<typeof AiSdkModel>[0]> = {}) =>
    new AiSdkModel({
      model: createOpenAI({ baseURL, apiKey: "sk-test" }).chat("gpt-test"),
      onMetrics: (m) => metrics.push(m),
      ...extra,
    });

  beforeEach(async () => {
    metrics.length = 0;
    server = new FakeOpenAIServer();
    baseURL = await server.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it("converts a plain exchange: system prompt, sampling properties, text, usage, finish reason", async () => {
    server.reply({
      kind: "json",
      body: completion(
        { content: "Hello there" },
        { usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } },
      ),
    });
    const model = make({ temperature: 0.3, maxTokens: 50, topP: 0.5 });
    expect(model.model).toBe("openai.chat/gpt-test");
    const out = await collect(
      model.generateContentAsync(ask({ config: { systemInstruction: "Be brief.", temperature: 0.9 } })),
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
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
    // The request's own temperature wins over the adapter property; the others fill in.
    expect(body).toMatchObject({ model: "gpt-test", temperature: 0.9, max_tokens: 50, top_p: 0.5 });
  });

  it("sends tools (JSON and Gemini schemas), a forced tool choice, and returns parallel calls with ids", async () => {
    server.reply({
      kind: "json",
      body: completion(
        {
          content: null,
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
            { id: "call_b", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } },
          ],
        },
        { finishReason: "tool_calls" },
      ),
    });
    const request = ask({
      config: {
        tools: [weatherTool],
        toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["weather"] } },
      },
    });
    const [response] = await collect(make().generateContentAsync(request));
    expect(response!.content!.parts).toEqual([
      { functionCall: { id: "call_a", name: "weather", args: { city: "Oslo" } } },
      { functionCall: { id: "call_b", name: "weather", args: { city: "Rome" } } },
    ]);
    expect(response!.finishReason).toBe("STOP");
    const body = server.lastBody as {
      tools: Array<{ function: { name: string; parameters: unknown } }>;
      tool_choice: unknown;
    };
    expect(body.tools.map((t) => t.function.name)).toEqual(["weather"]);
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "weather" } });

    server.reply({ kind: "json", body: completion({ content: "ok" }) });
    await collect(make().generateContentAsync(ask({ config: { tools: [weatherTool] } })));
    const tools = (server.lastBody as { tools: Array<{ function: { name: string; parameters: unknown } }> }).tools;
    expect(tools[1]!.function.parameters).toMatchObject({
      type: "object",
      properties: { zone: { type: ["string", "null"] } },
    });
  });

  it("sends function calls and their responses back paired by id, in call order", async () => {
    server.reply({ kind: "json", body: completion({ content: "Oslo 5, Rome 20" }) });
    const request = createLlmRequest({
      contents: [
        { role: "user", parts: [{ text: "Weather?" }] },
        {
          role: "model",
          parts: [
            { text: "Checking." },
            { functionCall: { id: "call_a", name: "weather", args: { city: "Oslo" } } },
            { functionCall: { id: "call_b", name: "weather", args: { city: "Rome" } } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { id: "call_a", name: "weather", response: { temp: 5 } } },
            { functionResponse: { id: "call_b", name: "weather", response: { temp: 20 } } },
          ],
        },
      ],
      config: { tools: [weatherTool] },
    });
    const [response] = await collect(make().generateContentAsync(request));
    expect(getTextOf(response!.content)).toBe("Oslo 5, Rome 20");
    expect(server.lastBody.messages).toEqual([
      { role: "user", content: "Weather?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
          { id: "call_b", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: '{"temp":5}' },
      { role: "tool", tool_call_id: "call_b", content: '{"temp":20}' },
    ]);
  });

  it("asks for structured output with the response JSON schema", async () => {
    server.reply({ kind: "json", body: completion({ content: '{"city":"Oslo"}' }) });
    const schema = {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    };
    const [response] = await collect(
      make().generateContentAsync(
        ask({ config: { responseMimeType: "application/json", responseJsonSchema: schema } }),
      ),
    );
    expect(JSON.parse(getTextOf(response!.content))).toEqual({ city: "Oslo" });
    expect(server.lastBody.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "response", schema },
    });
  });

  it("streams text partials whose join is the final text, with usage on the final response", async () => {
    server.reply({
      kind: "sse",
      chunks: [
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Hel" }),
        chunk({ content: "lo, " }),
        chunk({ content: "world" }),
        chunk({}, { finishReason: "stop" }),
        chunk({}, { noChoices: true, usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }),
      ],
    });
    const out = await collect(make().generateContentAsync(ask(), true));
    expect(out.filter((r) => r.partial).map((r) => getTextOf(r.content))).toEqual(["Hel", "lo, ", "world"]);
    expect(out.at(-1)).toEqual({
      content: { role: "model", parts: [{ text: "Hello, world" }] },
      finishReason: "STOP",
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 },
      modelVersion: "gpt-4o-mini-2024-07-18",
    });
    expect(server.lastBody).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("assembles streamed tool-call deltas of parallel calls into function calls", async () => {
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
          tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "time", arguments: '{"zone"' } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: ':"CET"}' } }] }),
        chunk({}, { finishReason: "tool_calls" }),
      ],
    });
    const out = await collect(make().generateContentAsync(ask({ config: { tools: [weatherTool] } }), true));
    expect(out).toHaveLength(1);
    expect(out[0]!.content!.parts).toEqual([
      { functionCall: { id: "call_a", name: "weather", args: { city: "Oslo" } } },
      { functionCall: { id: "call_b", name: "time", args: { zone: "CET" } } },
    ]);
  });
});

describe("AiSdkModel replaying recorded OpenAI transcripts", () => {
  let server: FakeOpenAIServer;
  let baseURL: string;
  beforeEach(async () => {
    server = new FakeOpenAIServer();
    baseURL = await server.start();
  });
  afterEach(async () => {
    await server.close();
  });
  const make = () => new AiSdkModel({ model: createOpenAI({ baseURL, apiKey: "sk" }).chat("gpt-4o-mini") });

  it("streams __fixtures__/openai/chat-stream-text.sse into partials and the joined final text", async () => {
    server.reply(recordedReply("openai/chat-stream-text.sse"));
    const out = await collect(make().generateContentAsync(ask(), true));
    expect(
      out
        .filter((r) => r.partial)
        .map((r) => getTextOf(r.content))
        .join(""),
    ).toBe("The capital of France is Paris.");
    expect(out.at(-1)).toMatchObject({
      content: { parts: [{ text: "The capital of France is Paris." }] },
      usageMetadata: { promptTokenCount: 14, candidatesTokenCount: 8, totalTokenCount: 22 },
    });
  });

  it("returns the parallel calls of the recorded tool-call stream and JSON body", async () => {
    server.reply(
      recordedReply("openai/chat-stream-parallel-tool-calls.sse"),
      recordedReply("openai/chat-completion-parallel-tool-calls.json"),
    );
    const streamed = await collect(make().generateContentAsync(ask({ config: { tools: [weatherTool] } }), true));
    expect(streamed.at(-1)!.content!.parts!.map((p) => p.functionCall)).toEqual([
      { id: "call_Ab3dE5fG7hI9jK1lM3nO5pQ7", name: "get_weather", args: { city: "Paris" } },
      { id: "call_Rs7tU9vW1xY3zA5bC7dE9fG1", name: "get_weather", args: { city: "Tokyo" } },
    ]);
    const [whole] = await collect(make().generateContentAsync(ask({ config: { tools: [weatherTool] } })));
    expect(whole!.content!.parts!.map((p) => p.functionCall?.id)).toEqual([
      "call_8fXkQ2mVb1Lr9TzHc3NwYp0e",
      "call_Jd4sW7uEo2Gq6RkPm1AvXn5t",
    ]);
  });
});

describe("AiSdkModel errors, cancellation and validation", () => {
  let server: FakeOpenAIServer;
  let baseURL: string;
  const make = (extra: Partial<ConstructorParameters<typeof AiSdkModel>[0]> = {}) =>
    new AiSdkModel({ model: createOpenAI({ baseURL, apiKey: "sk-test" }).chat("gpt-test"), ...extra });

  beforeEach(async () => {
    server = new FakeOpenAIServer();
    baseURL = await server.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it.each([
    [429, "RATE_LIMIT", { "retry-after": "3" }, true, 3000],
    [401, "AUTH_ERROR", {}, false, undefined],
    [400, "CLIENT_ERROR", {}, false, undefined],
    [500, "SERVER_ERROR", {}, true, undefined],
  ] as const)(
    "maps HTTP %i to %s (Retry-After honoured)",
    async (status, category, headers, retryable, retryAfterMs) => {
      server.reply({
        kind: "json",
        status,
        headers,
        body: { error: { message: "nope", type: "invalid_request_error" } },
      });
      const error = await collect(make().generateContentAsync(ask())).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ category, retryable, status, provider: "openai" });
      expect((error as ProviderError).retryAfterMs).toBe(retryAfterMs);
    },
  );

  it("maps a connection dropped mid-stream to a retryable NETWORK error after the partials", async () => {
    server.reply({ kind: "sse", chunks: [chunk({ content: "Hel" })], end: "drop" });
    const seen: LlmResponse[] = [];
    const error = await (async () => {
      for await (const r of make().generateContentAsync(ask(), true)) seen.push(r);
    })().catch((e: unknown) => e);
    expect(seen.map((r) => getTextOf(r.content))).toEqual(["Hel"]);
    expect(error).toMatchObject({ category: "NETWORK", retryable: true });
  });

  it("maps an error event inside the stream to a retryable SERVER_ERROR after the partials", async () => {
    server.reply({
      kind: "sse",
      chunks: [chunk({ content: "Hel" })],
      end: { error: { message: "The server had an error", type: "server_error", param: null, code: null } },
    });
    const seen: LlmResponse[] = [];
    const error = await (async () => {
      for await (const r of make().generateContentAsync(ask(), true)) seen.push(r);
    })().catch((e: unknown) => e);
    expect(seen.map((r) => getTextOf(r.content))).toEqual(["Hel"]);
    expect(error).toMatchObject({ category: "SERVER_ERROR", retryable: true });
  });

  it("cancels a hanging call through the AbortSignal and closes the connection", async () => {
    server.reply({ kind: "hang" });
    const controller = new AbortController();
    const pending = collect(make().generateContentAsync(ask(), true, { signal: controller.signal })).catch(
      (e: unknown) => e,
    );
    await server.hangingRequest;
    controller.abort();
    expect(await pending).toMatchObject({ category: "CANCELLED", retryable: false });
    await server.hangingClosed;
  });

  const withCode = createLlmRequest({
    contents: [
      { role: "user", parts: [{ text: "Run it" }, { executableCode: { code: "print(1)", language: "PYTHON" } }] },
      { role: "model", parts: [{ codeExecutionResult: { outcome: "OUTCOME_OK", output: "1" } }] },
      { role: "user", parts: [{ text: "Thanks" }] },
    ],
  });

  it("validation with failFast: the first unconvertible part throws MessageConversionError naming it; nothing is sent", async () => {
    const error = await collect(
      make({ validation: { enabled: true, failFast: true } }).generateContentAsync(withCode),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MESSAGE_CONVERSION_ERROR", issues: [{ where: "contents[0].parts[1]" }] });
    expect((error as Error).message).toContain("executableCode");
    expect(server.requests).toHaveLength(0);
  });

  it("validation without failFast lists every unconvertible part in one error", async () => {
    const error = await collect(
      make({ validation: { enabled: true, failFast: false } }).generateContentAsync(withCode),
    ).catch((e: unknown) => e);
    expect((error as { issues: Array<{ where: string }> }).issues.map((i) => i.where)).toEqual([
      "contents[0].parts[1]",
      "contents[1].parts[0]",
    ]);
  });

  it("validation off: unconvertible parts are dropped, the call goes through and the observer lists them", async () => {
    server.reply({ kind: "json", body: completion({ content: "ok" }) });
    const records: FrameworkCallMetrics[] = [];
    const model = make({ observability: { enabled: true }, onMetrics: (m) => records.push(m) });
    await collect(model.generateContentAsync(withCode));
    expect(server.lastBody.messages).toEqual([
      { role: "user", content: "Run it" },
      { role: "user", content: "Thanks" },
    ]);
    expect(records[0]!.conversionIssues!.map((i) => i.where)).toEqual(["contents[0].parts[1]", "contents[1].parts[0]"]);
  });

  it("malformed tool-call input: errorCode on the response, or MessageConversionError with validation", async () => {
    const bad = () =>
      completion(
        {
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "weather", arguments: "{oops" } }],
        },
        { finishReason: "tool_calls" },
      );
    server.reply({ kind: "json", body: bad() }, { kind: "json", body: bad() });
    const request = ask({ config: { tools: [weatherTool] } });
    const [response] = await collect(make().generateContentAsync(request));
    expect(response).toMatchObject({
      errorCode: "MALFORMED_FUNCTION_CALL",
      content: { parts: [{ functionCall: { id: "c", name: "weather", args: {} } }] },
    });
    const error = await collect(make({ validation: { enabled: true } }).generateContentAsync(request)).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "MESSAGE_CONVERSION_ERROR" });
    expect((error as Error).message).toContain("{oops");
  });

  it("rejects bad options and non-models with ConfigurationError", () => {
    expect(() => new AiSdkModel({ model: {} as never })).toThrow(
      expect.objectContaining({ code: "CONFIGURATION_ERROR" }),
    );
    expect(() => make({ topP: 3 })).toThrow(/topP/);
    expect(
      () => new AiSdkModel({ model: { specificationVersion: "v2", doGenerate() {}, doStream() {} } as never }),
    ).toThrow(/v2/);
  });
});

describe("AiSdkModel observability", () => {
  let server: FakeOpenAIServer;
  let baseURL: string;
  beforeEach(async () => {
    server = new FakeOpenAIServer();
    baseURL = await server.start();
  });
  afterEach(async () => {
    await server.close();
  });
  const model = (
    observability: { enabled: boolean; includeContent?: boolean; metricsEnabled?: boolean },
    records: FrameworkCallMetrics[],
  ) =>
    new AiSdkModel({
      model: createOpenAI({ baseURL, apiKey: "sk" }).chat("gpt-test"),
      observability,
      onMetrics: (m) => records.push(m),
    });

  it("reports latency and tokens per call, and content only with includeContent", async () => {
    server.reply(
      { kind: "json", body: completion({ content: "Hello" }) },
      { kind: "json", body: completion({ content: "Again" }) },
    );
    const plain: FrameworkCallMetrics[] = [];
    await collect(model({ enabled: true }, plain).generateContentAsync(ask()));
    expect(plain).toHaveLength(1);
    expect(plain[0]).toMatchObject({
      adapter: "AiSdkModel",
      model: "openai.chat/gpt-test",
      stream: false,
      outcome: "success",
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      finishReason: "STOP",
    });
    expect(plain[0]!.latencyMs).toBeGreaterThan(0);
    expect(plain[0]!.request).toBeUndefined();
    expect(plain[0]!.response).toBeUndefined();

    const withContent: FrameworkCallMetrics[] = [];
    await collect(
      model({ enabled: true, includeContent: true, metricsEnabled: false }, withContent).generateContentAsync(ask()),
    );
    expect(withContent[0]!.request!.contents).toEqual([{ role: "user", parts: [{ text: "Hi" }] }]);
    expect(withContent[0]!.response).toEqual({ role: "model", parts: [{ text: "Again" }] });
    expect(withContent[0]!.latencyMs).toBeUndefined();
    expect(withContent[0]!.inputTokens).toBeUndefined();
  });

  it("reports a failed call with its error code, and nothing when disabled", async () => {
    server.reply(
      { kind: "json", status: 500, body: { error: { message: "boom", type: "server_error" } } },
      { kind: "json", body: completion({ content: "x" }) },
    );
    const records: FrameworkCallMetrics[] = [];
    await collect(model({ enabled: true }, records).generateContentAsync(ask())).catch(() => undefined);
    expect(records).toEqual([
      expect.objectContaining({ outcome: "error", error: expect.objectContaining({ code: "SERVER_ERROR" }) }),
    ]);
    const none: FrameworkCallMetrics[] = [];
    await collect(model({ enabled: false }, none).generateContentAsync(ask()));
    expect(none).toEqual([]);
  });
});
