import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest } from "@agentkit/core";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeOpenAIServer, completion } from "./fixtures/openai-server.js";
import { collect } from "@agentkit/test-support/collect";

describe("OpenAIModel request conversion (schemas)", () => {
  let server: FakeOpenAIServer;
  let model: OpenAIModel;

  beforeEach(async () => {
    server = new FakeOpenAIServer();
    model = new OpenAIModel({ model: "gpt-4o-mini", apiKey: "sk-test", baseURL: await server.start() });
    server.reply({ kind: "json", body: completion({ content: '{"answer":42}' }) });
  });
  afterEach(async () => {
    await model.close();
    await server.close();
  });

  it("sends responseJsonSchema as a json_schema response_format", async () => {
    const schema = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] };
    const [response] = await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [{ role: "user", parts: [{ text: "q" }] }],
          config: { responseMimeType: "application/json", responseJsonSchema: schema },
        }),
      ),
    );
    expect(server.lastBody.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "response", schema, strict: false },
    });
    expect(response!.content!.parts).toEqual([{ text: '{"answer":42}' }]);
  });

  it("translates Gemini schemas (upper-case types, nullable, string limits) for tools and responseSchema", async () => {
    const geminiSchema = {
      type: "OBJECT",
      properties: {
        city: { type: "STRING", description: "City name", minLength: "1" },
        days: { type: "INTEGER", nullable: true },
        tags: { type: "ARRAY", items: { type: "STRING", enum: ["a", "b"] }, maxItems: "3" },
        unit: { anyOf: [{ type: "STRING" }, { type: "NUMBER" }] },
      },
      required: ["city"],
      propertyOrdering: ["city", "days"],
    };
    const expected = {
      type: "object",
      properties: {
        city: { type: "string", description: "City name", minLength: 1 },
        days: { type: ["integer", "null"] },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 3 },
        unit: { anyOf: [{ type: "string" }, { type: "number" }] },
      },
      required: ["city"],
    };
    await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [{ role: "user", parts: [{ text: "q" }] }],
          config: {
            tools: [{ functionDeclarations: [{ name: "forecast", parameters: geminiSchema }, { name: "noargs" }] }],
            responseSchema: geminiSchema,
          },
        }),
      ),
    );
    expect(server.lastBody.tools).toEqual([
      { type: "function", function: { name: "forecast", parameters: expected } },
      { type: "function", function: { name: "noargs", parameters: { type: "object", properties: {} } } },
    ]);
    expect(server.lastBody.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "response", schema: expected, strict: false },
    });
  });

  it("asks for a JSON object when only responseMimeType is JSON", async () => {
    await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [{ role: "user", parts: [{ text: "q" }] }],
          config: { responseMimeType: "application/json" },
        }),
      ),
    );
    expect(server.lastBody.response_format).toEqual({ type: "json_object" });
  });

  it("pairs calls and responses without ids by name and order", async () => {
    await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [
            { role: "user", parts: [{ text: "q" }] },
            {
              role: "model",
              parts: [
                { functionCall: { name: "f", args: { n: 1 } } },
                { functionCall: { name: "f", args: { n: 2 } } },
                { functionCall: { name: "g" } },
              ],
            },
            {
              role: "user",
              parts: [
                { functionResponse: { name: "f", response: { r: 1 } } },
                { functionResponse: { name: "f", response: { r: 2 } } },
                { functionResponse: { name: "g", response: {} } },
              ],
            },
          ],
        }),
      ),
    );
    const messages = server.lastBody.messages as {
      role: string;
      tool_calls?: { id: string }[];
      tool_call_id?: string;
    }[];
    const callIds = messages[1]!.tool_calls!.map((c) => c.id);
    expect(callIds).toEqual(["call_f_0", "call_f_1", "call_g_0"]);
    expect(messages.slice(2).map((m) => m.tool_call_id)).toEqual(callIds);
  });

  it("sends audio and PDF inline data as input_audio and file parts", async () => {
    await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [
            {
              role: "user",
              parts: [
                { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } },
                { inlineData: { mimeType: "application/pdf", data: "JVBERi0=", displayName: "spec.pdf" } },
                { inlineData: { mimeType: "video/mp4", data: "AAAA" } },
              ],
            },
          ],
        }),
      ),
    );
    expect(server.lastBody.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "spec.pdf" } },
        ],
      },
    ]);
  });

  it.each([
    [{ mode: "ANY" }, "required"],
    [{ mode: "NONE" }, "none"],
    [{ mode: "AUTO" }, "auto"],
    [
      { mode: "ANY", allowedFunctionNames: ["f"] },
      { type: "function", function: { name: "f" } },
    ],
    [
      { mode: "ANY", allowedFunctionNames: ["f", "g"] },
      {
        type: "allowed_tools",
        allowed_tools: {
          mode: "required",
          tools: [
            { type: "function", function: { name: "f" } },
            { type: "function", function: { name: "g" } },
          ],
        },
      },
    ],
  ])("maps functionCallingConfig %j to tool_choice", async (functionCallingConfig, expected) => {
    await collect(
      model.generateContentAsync(
        createLlmRequest({
          contents: [{ role: "user", parts: [{ text: "q" }] }],
          config: {
            tools: [{ functionDeclarations: [{ name: "f" }, { name: "g" }] }],
            toolConfig: { functionCallingConfig },
          },
        }),
      ),
    );
    expect(server.lastBody.tool_choice).toEqual(expected);
  });
});
