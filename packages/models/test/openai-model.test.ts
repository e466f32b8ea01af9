import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest, type LlmRequest } from "@agentkit/core";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeOpenAIServer, completion } from "./fixtures/openai-server.js";
import { recordedReply } from "./fixtures/recorded-fixtures.js";
import { collect } from "@agentkit/test-support/collect";

describe("OpenAIModel (chat completions, non-streaming)", () => {
  let server: FakeOpenAIServer;
  let baseURL: string;
  let model: OpenAIModel;

  beforeEach(async () => {
    server = new FakeOpenAIServer();
    baseURL = await server.start();
    model = new OpenAIModel({ model: "openai/gpt-4o-mini", apiKey: "sk-test", baseURL });
  });
  afterEach(async () => {
    await model.close();
    await server.close();
  });

  it("returns plain text with usage, finish reason and model version", async () => {
    server.reply({
      kind: "json",
      body: completion(
        { content: "Hello there" },
        {
          usage: {
            prompt_tokens: 12,
            completion_tokens: 7,
            total_tokens: 19,
            prompt_tokens_details: { cached_tokens: 4 },
            completion_tokens_details: { reasoning_tokens: 3 },
          },
        },
      ),
    });
    const responses = await collect(
      model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] })),
    );
    expect(responses).toEqual([
      {
        content: { role: "model", parts: [{ text: "Hello there" }] },
        finishReason: "STOP",
        usageMetadata: {
          promptTokenCount: 12,
          candidatesTokenCount: 7,
          totalTokenCount: 19,
          cachedContentTokenCount: 4,
          thoughtsTokenCount: 3,
        },
        modelVersion: "gpt-4o-mini-2024-07-18",
      },
    ]);
    const request = server.requests[0]!;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-test");
    expect(model.model).toBe("gpt-4o-mini");
    expect(request.body.model).toBe("gpt-4o-mini");
    expect(request.body.stream).toBe(false);
  });

  it("converts the system instruction, history and generation config", async () => {
    server.reply({ kind: "json", body: completion({ content: "ok" }) });
    const request: LlmRequest = createLlmRequest({
      model: "openai/gpt-4.1",
      contents: [
        {
          role: "user",
          parts: [{ text: "Look at " }, { text: "this" }, { inlineData: { mimeType: "image/png", data: "iVBORw0K" } }],
        },
        { role: "model", parts: [{ text: "thinking...", thought: true }, { text: "A cat." }] },
        { role: "user", parts: [{ text: "Thanks" }] },
      ],
      config: {
        systemInstruction: { role: "system", parts: [{ text: "Be brief." }] },
        temperature: 0.2,
        topP: 0.9,
        maxOutputTokens: 100,
        stopSequences: ["END"],
        seed: 7,
        presencePenalty: 0.1,
        frequencyPenalty: 0.3,
      },
    });
    await collect(model.generateContentAsync(request));
    const body = server.lastBody;
    // The model sends its own configured name, not the agent's request.model ("gpt-4.1" here).
    expect(body.model).toBe("gpt-4o-mini");
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "Look at " },
          { type: "text", text: "this" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K" } },
        ],
      },
      { role: "assistant", content: "A cat." },
      { role: "user", content: "Thanks" },
    ]);
    expect(body).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_completion_tokens: 100,
      stop: ["END"],
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: 0.3,
    });
    expect(body.max_tokens).toBeUndefined();
    expect(body.tools).toBeUndefined();
  });

  it("round-trips a tool call: function call, then function response, then text", async () => {
    const weatherTool = {
      functionDeclarations: [
        {
          name: "get_weather",
          description: "Weather for a city",
          parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
    };
    server.reply(
      {
        kind: "json",
        body: completion(
          {
            content: null,
            tool_calls: [
              { id: "call_abc", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            ],
          },
          { finishReason: "tool_calls" },
        ),
      },
      { kind: "json", body: completion({ content: "Sunny in Paris." }) },
    );
    const first = await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [{ role: "user", parts: [{ text: "Weather in Paris?" }] }],
          config: { tools: [weatherTool] },
        }),
      ),
    );
    expect(first).toHaveLength(1);
    expect(first[0]!.finishReason).toBe("STOP");
    expect(first[0]!.content).toEqual({
      role: "model",
      parts: [{ functionCall: { id: "call_abc", name: "get_weather", args: { city: "Paris" } } }],
    });
    expect(server.lastBody.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ]);

    const second = await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [
            { role: "user", parts: [{ text: "Weather in Paris?" }] },
            first[0]!.content!,
            {
              role: "user",
              parts: [
                { functionResponse: { id: "call_abc", name: "get_weather", response: { temp: 21, sky: "sunny" } } },
              ],
            },
          ],
          config: { tools: [weatherTool] },
        }),
      ),
    );
    expect(second[0]!.content).toEqual({ role: "model", parts: [{ text: "Sunny in Paris." }] });
    expect(server.lastBody.messages).toEqual([
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_abc", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_abc", content: '{"temp":21,"sky":"sunny"}' },
    ]);
  });

  it("returns two parallel tool calls and sends one tool message per response", async () => {
    server.reply(
      {
        kind: "json",
        body: completion(
          {
            content: "Checking both.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"a"}' } },
              { id: "call_2", type: "function", function: { name: "lookup", arguments: '{"q":"b"}' } },
            ],
          },
          { finishReason: "tool_calls" },
        ),
      },
      { kind: "json", body: completion({ content: "done" }) },
    );
    const [response] = await collect(
      model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "both" }] }] })),
    );
    expect(response!.content!.parts).toEqual([
      { text: "Checking both." },
      { functionCall: { id: "call_1", name: "lookup", args: { q: "a" } } },
      { functionCall: { id: "call_2", name: "lookup", args: { q: "b" } } },
    ]);
    await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [
            { role: "user", parts: [{ text: "both" }] },
            response!.content!,
            {
              role: "user",
              parts: [
                { functionResponse: { id: "call_1", name: "lookup", response: { result: "A" } } },
                { functionResponse: { id: "call_2", name: "lookup", response: { result: "B" } } },
              ],
            },
          ],
        }),
      ),
    );
    const messages = server.lastBody.messages as Record<string, unknown>[];
    expect(messages[1]).toEqual({
      role: "assistant",
      content: "Checking both.",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"a"}' } },
        { id: "call_2", type: "function", function: { name: "lookup", arguments: '{"q":"b"}' } },
      ],
    });
    expect(messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "call_1", content: '{"result":"A"}' },
      { role: "tool", tool_call_id: "call_2", content: '{"result":"B"}' },
    ]);
  });

  it("keeps a call with malformed JSON arguments as args {} and flags the response", async () => {
    server.reply({
      kind: "json",
      body: completion(
        {
          content: null,
          tool_calls: [{ id: "call_x", type: "function", function: { name: "f", arguments: '{"a":' } }],
        },
        { finishReason: "tool_calls" },
      ),
    });
    const [response] = await collect(
      model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "go" }] }] })),
    );
    expect(response!.content!.parts).toEqual([{ functionCall: { id: "call_x", name: "f", args: {} } }]);
    expect(response!.errorCode).toBe("MALFORMED_FUNCTION_CALL");
    expect(response!.errorMessage).toContain('{"a":');
  });

  it("maps finish reasons", async () => {
    for (const [wire, mapped] of [
      ["length", "MAX_TOKENS"],
      ["content_filter", "SAFETY"],
      ["something_new", "OTHER"],
    ] as const) {
      server.reply({ kind: "json", body: completion({ content: "x" }, { finishReason: wire }) });
      const [response] = await collect(
        model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "go" }] }] })),
      );
      expect(response!.finishReason).toBe(mapped);
    }
  });
});

describe("OpenAIModel (chat completions) replaying a recorded tool-call response", () => {
  let server: FakeOpenAIServer;
  let model: OpenAIModel;

  beforeEach(async () => {
    server = new FakeOpenAIServer();
    model = new OpenAIModel({ model: "gpt-4o", apiKey: "sk-test", baseURL: await server.start() });
  });
  afterEach(async () => {
    await model.close();
    await server.close();
  });

  it("returns the parallel calls of __fixtures__/openai/chat-completion-parallel-tool-calls.json with their ids", async () => {
    server.reply(recordedReply("openai/chat-completion-parallel-tool-calls.json"));
    const [response] = await collect(
      model.generateContentAsync(
        createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Weather in Paris and Tokyo?" }] }] }),
      ),
    );
    expect(response).toEqual({
      content: {
        role: "model",
        parts: [
          { functionCall: { id: "call_8fXkQ2mVb1Lr9TzHc3NwYp0e", name: "get_weather", args: { city: "Paris" } } },
          { functionCall: { id: "call_Jd4sW7uEo2Gq6RkPm1AvXn5t", name: "get_weather", args: { city: "Tokyo" } } },
        ],
      },
      finishReason: "STOP",
      usageMetadata: {
        promptTokenCount: 82,
        candidatesTokenCount: 46,
        totalTokenCount: 128,
        cachedContentTokenCount: 0,
        thoughtsTokenCount: 0,
      },
      modelVersion: "gpt-4o-2024-08-06",
    });
  });
});
