import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest, getTextOf } from "@agentkit/core";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeOpenAIServer } from "./fixtures/openai-server.js";
import { collect } from "@agentkit/test-support/collect";

function apiResponse(output: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "resp_1",
    object: "response",
    created_at: 1_700_000_000,
    status: "completed",
    model: "gpt-4.1-2025-04-14",
    output,
    usage: {
      input_tokens: 11,
      input_tokens_details: { cached_tokens: 2, cache_write_tokens: 0 },
      output_tokens: 6,
      output_tokens_details: { reasoning_tokens: 1 },
      total_tokens: 17,
    },
    error: null,
    incomplete_details: null,
    ...extra,
  };
}

const message = (text: string) => ({
  type: "message",
  id: "msg_1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});

describe("OpenAIModel (Responses API)", () => {
  let server: FakeOpenAIServer;
  let model: OpenAIModel;

  beforeEach(async () => {
    server = new FakeOpenAIServer();
    model = new OpenAIModel({
      model: "openai/gpt-4.1",
      apiKey: "sk-test",
      baseURL: await server.start(),
      api: "responses",
    });
  });
  afterEach(async () => {
    await model.close();
    await server.close();
  });

  it("sends instructions, history items and tools, and converts text, calls and usage", async () => {
    server.reply({
      kind: "json",
      body: apiResponse([
        { type: "reasoning", id: "rs_1", summary: [] },
        message("Checking."),
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_9",
          name: "lookup",
          arguments: '{"q":"x"}',
          status: "completed",
        },
      ]),
    });
    const [response] = await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [
            { role: "user", parts: [{ text: "find x" }] },
            { role: "model", parts: [{ functionCall: { id: "call_1", name: "lookup", args: { q: "w" } } }] },
            { role: "user", parts: [{ functionResponse: { id: "call_1", name: "lookup", response: { hit: false } } }] },
          ],
          config: {
            systemInstruction: "Be brief.",
            maxOutputTokens: 50,
            tools: [
              {
                functionDeclarations: [
                  {
                    name: "lookup",
                    description: "Look up",
                    parameters: { type: "OBJECT", properties: { q: { type: "STRING" } } },
                  },
                ],
              },
            ],
            responseJsonSchema: { type: "object" },
          },
        }),
      ),
    );
    const request = server.requests[0]!;
    expect(request.path).toBe("/v1/responses");
    expect(request.body).toMatchObject({
      model: "gpt-4.1",
      instructions: "Be brief.",
      store: false,
      max_output_tokens: 50,
      stream: false,
      text: { format: { type: "json_schema", name: "response", schema: { type: "object" }, strict: false } },
      tools: [
        {
          type: "function",
          name: "lookup",
          description: "Look up",
          strict: false,
          parameters: { type: "object", properties: { q: { type: "string" } } },
        },
      ],
    });
    expect(request.body.input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "find x" }] },
      { type: "function_call", call_id: "call_1", name: "lookup", arguments: '{"q":"w"}' },
      { type: "function_call_output", call_id: "call_1", output: '{"hit":false}' },
    ]);
    expect(response).toEqual({
      content: {
        role: "model",
        parts: [{ text: "Checking." }, { functionCall: { id: "call_9", name: "lookup", args: { q: "x" } } }],
      },
      finishReason: "STOP",
      usageMetadata: {
        promptTokenCount: 11,
        candidatesTokenCount: 6,
        totalTokenCount: 17,
        cachedContentTokenCount: 2,
        thoughtsTokenCount: 1,
      },
      modelVersion: "gpt-4.1-2025-04-14",
    });
  });

  it("maps an incomplete response to MAX_TOKENS", async () => {
    server.reply({
      kind: "json",
      body: apiResponse([message("cut")], {
        status: "incomplete",
        incomplete_details: { reason: "max_output_tokens" },
      }),
    });
    const [response] = await collect(
      model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "go" }] }] })),
    );
    expect(response!.finishReason).toBe("MAX_TOKENS");
  });

  it("streams text deltas as partials and ends with the completed response", async () => {
    const done = apiResponse([
      message("Hello world"),
      { type: "function_call", id: "fc_1", call_id: "call_2", name: "f", arguments: "{}", status: "completed" },
    ]);
    server.reply({
      kind: "events",
      events: [
        { type: "response.created", response: { ...done, status: "in_progress", output: [] } },
        {
          type: "response.output_text.delta",
          item_id: "msg_1",
          output_index: 0,
          content_index: 0,
          delta: "Hello",
          logprobs: [],
        },
        {
          type: "response.output_text.delta",
          item_id: "msg_1",
          output_index: 0,
          content_index: 0,
          delta: " world",
          logprobs: [],
        },
        { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 1, delta: "{}" },
        { type: "response.completed", response: done },
      ],
    });
    const responses = await collect(
      model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "go" }] }] }), true),
    );
    expect(responses.map((r) => r.partial === true)).toEqual([true, true, false]);
    const final = responses.at(-1)!;
    expect(getTextOf(final.content)).toBe(
      responses
        .slice(0, -1)
        .map((r) => getTextOf(r.content))
        .join(""),
    );
    expect(final.content!.parts).toEqual([
      { text: "Hello world" },
      { functionCall: { id: "call_2", name: "f", args: {} } },
    ]);
    expect(final.usageMetadata?.totalTokenCount).toBe(17);
    expect(server.lastBody.stream).toBe(true);
  });

  it("raises a typed error when the stream ends without a completed response", async () => {
    server.reply({
      kind: "events",
      events: [
        {
          type: "response.output_text.delta",
          item_id: "m",
          output_index: 0,
          content_index: 0,
          delta: "Hi",
          logprobs: [],
        },
      ],
    });
    const error = await collect(
      model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "go" }] }] }), true),
    ).then(
      () => undefined,
      (e: unknown) => e as { code?: string },
    );
    expect(error?.code).toBe("SERVER_ERROR");
  });
});
