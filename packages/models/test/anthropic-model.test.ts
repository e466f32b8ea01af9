import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest, FinishReason, type LlmRequest, type LlmResponse } from "@agentkit/core";
import { AnthropicModel } from "../src/anthropic/index.js";
import { FakeAnthropicServer, message, usage } from "./fixtures/anthropic-server.js";
import { recordedReply } from "./fixtures/recorded-fixtures.js";

let server: FakeAnthropicServer;
let baseURL: string;

beforeEach(async () => {
  server = new FakeAnthropicServer();
  baseURL = await server.start();
});
afterEach(async () => {
  await server.close();
});

async function collect(model: AnthropicModel, request: LlmRequest, stream = false): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const response of model.generateContentAsync(request, stream)) out.push(response);
  return out;
}

function model(extra: Partial<ConstructorParameters<typeof AnthropicModel>[0]> = {}): AnthropicModel {
  return new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL, ...extra });
}

describe("AnthropicModel (non-streaming)", () => {
  it("sends a Messages request and returns one complete text response", async () => {
    server.reply({ kind: "json", body: message([{ type: "text", text: "Hello there", citations: null }]) });
    const responses = await collect(
      model({ model: "anthropic/claude-test" }),
      createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] }),
    );
    expect(responses).toHaveLength(1);
    expect(responses[0]!.content).toEqual({ role: "model", parts: [{ text: "Hello there" }] });
    expect(responses[0]!.partial).toBeUndefined();
    expect(responses[0]!.finishReason).toBe(FinishReason.STOP);
    const req = server.requests[0]!;
    expect(req.path).toBe("/v1/messages");
    expect(req.headers.authorization).toBe("Bearer sk-test"); // SDK 1.x sends the key as a bearer token
    expect(req.body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      stream: false,
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    });
  });

  it("converts the system instruction, sampling settings and history, merging same-role turns", async () => {
    server.reply({ kind: "json", body: message([{ type: "text", text: "ok", citations: null }]) });
    const request = createLlmRequest({
      contents: [
        { role: "user", parts: [{ text: "first" }] },
        { role: "user", parts: [{ text: "second" }, { inlineData: { mimeType: "image/png", data: "aGk_-w==" } }] },
        { role: "model", parts: [{ text: "answer" }] },
        { role: "model", parts: [{ text: "more" }] },
        { role: "user", parts: [{ text: "again" }] },
      ],
      config: {
        systemInstruction: { role: "system", parts: [{ text: "Be brief." }] },
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        stopSequences: ["END"],
        maxOutputTokens: 100,
      },
    });
    await collect(model(), request);
    expect(server.lastBody).toEqual({
      model: "claude-test",
      max_tokens: 100,
      stream: false,
      system: "Be brief.",
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ["END"],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "first" },
            { type: "text", text: "second" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "aGk/+w==" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "answer" },
            { type: "text", text: "more" },
          ],
        },
        { role: "user", content: [{ type: "text", text: "again" }] },
      ],
    });
  });

  it("returns tool_use blocks as function calls and sends the results back as tool_result blocks", async () => {
    server.reply(
      {
        kind: "json",
        body: message(
          [
            { type: "text", text: "Let me check.", citations: null },
            {
              type: "tool_use",
              id: "toolu_1",
              name: "get_weather",
              input: { city: "Paris" },
              caller: { type: "direct" },
            },
          ],
          "tool_use",
        ),
      },
      { kind: "json", body: message([{ type: "text", text: "Sunny in Paris.", citations: null }]) },
    );
    const tools = [
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Weather for a city",
            parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
        ],
      },
    ];
    const llm = model();
    const first = await collect(
      llm,
      createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Weather?" }] }], config: { tools } }),
    );
    expect(first[0]!.content!.parts).toEqual([
      { text: "Let me check." },
      { functionCall: { id: "toolu_1", name: "get_weather", args: { city: "Paris" } } },
    ]);
    expect(first[0]!.finishReason).toBe(FinishReason.STOP);
    expect(server.requests[0]!.body.tools).toEqual([
      {
        name: "get_weather",
        description: "Weather for a city",
        input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ]);

    const second = await collect(
      llm,
      createLlmRequest({
        contents: [
          { role: "user", parts: [{ text: "Weather?" }] },
          first[0]!.content!,
          {
            role: "user",
            parts: [{ functionResponse: { id: "toolu_1", name: "get_weather", response: { temp: 21 } } }],
          },
        ],
        config: { tools },
      }),
    );
    expect(second[0]!.content!.parts).toEqual([{ text: "Sunny in Paris." }]);
    expect(server.lastBody.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: '{"temp":21}' }] },
    ]);
  });

  it("handles two parallel tool_use blocks and merges their results (errors flagged) into one user turn", async () => {
    server.reply(
      {
        kind: "json",
        body: message(
          [
            { type: "tool_use", id: "toolu_a", name: "lookup", input: { q: "a" }, caller: { type: "direct" } },
            { type: "tool_use", id: "toolu_b", name: "lookup", input: { q: "b" }, caller: { type: "direct" } },
          ],
          "tool_use",
        ),
      },
      { kind: "json", body: message([{ type: "text", text: "done", citations: null }]) },
    );
    const llm = model();
    const [turn] = await collect(llm, createLlmRequest({ contents: [{ role: "user", parts: [{ text: "both" }] }] }));
    const calls = turn!.content!.parts!.map((p) => p.functionCall);
    expect(calls).toEqual([
      { id: "toolu_a", name: "lookup", args: { q: "a" } },
      { id: "toolu_b", name: "lookup", args: { q: "b" } },
    ]);
    await collect(
      llm,
      createLlmRequest({
        contents: [
          { role: "user", parts: [{ text: "both" }] },
          turn!.content!,
          { role: "user", parts: [{ functionResponse: { id: "toolu_a", name: "lookup", response: { result: "A" } } }] },
          {
            role: "user",
            parts: [{ functionResponse: { id: "toolu_b", name: "lookup", response: { error: "not found" } } }],
          },
        ],
      }),
    );
    const messages = server.lastBody.messages as unknown[];
    expect(messages).toHaveLength(3);
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_a", content: '{"result":"A"}' },
        { type: "tool_result", tool_use_id: "toolu_b", content: '{"error":"not found"}', is_error: true },
      ],
    });
  });

  it("keeps thinking blocks with their signatures across turns", async () => {
    server.reply(
      {
        kind: "json",
        body: message([
          { type: "thinking", thinking: "Consider it.", signature: "sig-123" },
          { type: "text", text: "42", citations: null },
        ]),
      },
      { kind: "json", body: message([{ type: "text", text: "ok", citations: null }]) },
    );
    const llm = model({ thinking: { budgetTokens: 2048 } });
    const [first] = await collect(llm, createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Q" }] }] }));
    expect(first!.content!.parts).toEqual([
      { text: "Consider it.", thought: true, thoughtSignature: "sig-123" },
      { text: "42" },
    ]);
    expect(server.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    await collect(
      llm,
      createLlmRequest({
        contents: [
          { role: "user", parts: [{ text: "Q" }] },
          first!.content!,
          { role: "user", parts: [{ text: "Q2" }] },
        ],
      }),
    );
    expect((server.lastBody.messages as unknown[])[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Consider it.", signature: "sig-123" },
        { type: "text", text: "42" },
      ],
    });
  });

  it("round-trips redacted thinking blocks as text-less thoughts carrying the data as signature", async () => {
    server.reply(
      {
        kind: "json",
        body: message([
          { type: "redacted_thinking", data: "ENCRYPTED" },
          { type: "text", text: "fine", citations: null },
        ]),
      },
      { kind: "json", body: message([{ type: "text", text: "ok", citations: null }]) },
    );
    const llm = model({ thinking: { budgetTokens: 1024 } });
    const [first] = await collect(llm, createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Q" }] }] }));
    expect(first!.content!.parts).toEqual([{ thought: true, thoughtSignature: "ENCRYPTED" }, { text: "fine" }]);
    await collect(
      llm,
      createLlmRequest({
        contents: [
          { role: "user", parts: [{ text: "Q" }] },
          first!.content!,
          { role: "user", parts: [{ text: "Q2" }] },
        ],
      }),
    );
    expect((server.lastBody.messages as unknown[])[1]).toEqual({
      role: "assistant",
      content: [
        { type: "redacted_thinking", data: "ENCRYPTED" },
        { type: "text", text: "fine" },
      ],
    });
  });

  it("reports usage including cache reads and writes", async () => {
    server.reply({
      kind: "json",
      body: message([{ type: "text", text: "x", citations: null }], "max_tokens", usage(10, 7, 100, 20)),
    });
    const [response] = await collect(
      model(),
      createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] }),
    );
    expect(response!.usageMetadata).toEqual({
      promptTokenCount: 130,
      candidatesTokenCount: 7,
      totalTokenCount: 137,
      cachedContentTokenCount: 100,
    });
    expect(response!.finishReason).toBe(FinishReason.MAX_TOKENS);
  });

  it("marks the system prompt and the last tool with cache_control when prompt caching is on", async () => {
    server.reply({ kind: "json", body: message([{ type: "text", text: "x", citations: null }]) });
    await collect(
      model({ promptCaching: true }),
      createLlmRequest({
        contents: [{ role: "user", parts: [{ text: "Hi" }] }],
        config: {
          systemInstruction: "System.",
          tools: [
            {
              functionDeclarations: [
                { name: "a" },
                { name: "b", parametersJsonSchema: { type: "object", properties: {} } },
              ],
            },
          ],
        },
      }),
    );
    expect(server.lastBody.system).toEqual([{ type: "text", text: "System.", cache_control: { type: "ephemeral" } }]);
    expect(server.lastBody.tools).toEqual([
      { name: "a", input_schema: { type: "object" } },
      { name: "b", input_schema: { type: "object", properties: {} }, cache_control: { type: "ephemeral" } },
    ]);
  });

  it("translates a Gemini schema with upper-case types to JSON Schema", async () => {
    server.reply({ kind: "json", body: message([{ type: "text", text: "x", citations: null }]) });
    await collect(
      model(),
      createLlmRequest({
        contents: [{ role: "user", parts: [{ text: "Hi" }] }],
        config: {
          tools: [
            {
              functionDeclarations: [
                {
                  name: "plan",
                  parameters: {
                    type: "OBJECT",
                    properties: {
                      steps: { type: "ARRAY", items: { type: "STRING" }, minItems: "1" },
                      note: { type: "STRING", nullable: true },
                    },
                    required: ["steps"],
                  },
                },
              ],
            },
          ],
        },
      }),
    );
    expect(server.lastBody.tools).toEqual([
      {
        name: "plan",
        input_schema: {
          type: "object",
          properties: {
            steps: { type: "array", items: { type: "string" }, minItems: 1 },
            note: { type: ["string", "null"] },
          },
          required: ["steps"],
        },
      },
    ]);
  });

  it("maps refusal and other stop reasons", async () => {
    server.reply({ kind: "json", body: message([], "refusal") }, { kind: "json", body: message([], "pause_turn") });
    const llm = model();
    const req = () => createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });
    expect((await collect(llm, req()))[0]!.finishReason).toBe(FinishReason.SAFETY);
    expect((await collect(llm, req()))[0]!.finishReason).toBe(FinishReason.OTHER);
  });
});

describe("AnthropicModel replaying a recorded tool_use response", () => {
  it("returns the text and parallel calls of __fixtures__/anthropic/message-parallel-tool-use.json", async () => {
    server.reply(recordedReply("anthropic/message-parallel-tool-use.json"));
    const [response] = await collect(
      model(),
      createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Weather in Paris and Tokyo?" }] }] }),
    );
    expect(response!.content!.parts).toEqual([
      { text: "I'll check the weather in both cities." },
      { functionCall: { id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", args: { city: "Paris" } } },
      { functionCall: { id: "toolu_01B7xk2Lm9Qp4Rs6Tu8Vw0Yz", name: "get_weather", args: { city: "Tokyo" } } },
    ]);
    expect(response!.finishReason).toBe(FinishReason.STOP);
    expect(response!.usageMetadata).toMatchObject({ promptTokenCount: 472, candidatesTokenCount: 89 });
  });
});

describe("AnthropicModel model name", () => {
  it("sends its own configured model, not the agent's request.model", async () => {
    server.reply({ kind: "json", body: message([{ type: "text", text: "ok", citations: null }]) });
    await collect(
      model({ model: "anthropic/claude-configured" }),
      createLlmRequest({ model: "some-other-model", contents: [{ role: "user", parts: [{ text: "Hi" }] }] }),
    );
    expect(server.lastBody.model).toBe("claude-configured");
  });
});
