import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest, type LlmResponse } from "@agentkit/core";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeOpenAIServer, completion } from "./fixtures/openai-server.js";

async function collect(gen: AsyncGenerator<LlmResponse, void, void>): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const r of gen) out.push(r);
  return out;
}

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
      model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "q" }] }], config: { responseMimeType: "application/json", responseJsonSchema: schema } })),
    );
    expect(server.lastBody.response_format).toEqual({ type: "json_schema", json_schema: { name: "response", schema, strict: false } });
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
    expect(server.lastBody.response_format).toEqual({ type: "json_schema", json_schema: { name: "response", schema: expected, strict: false } });
  });

  it("asks for a JSON object when only responseMimeType is JSON", async () => {
    await collect(model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "q" }] }], config: { responseMimeType: "application/json" } })));
    expect(server.lastBody.response_format).toEqual({ type: "json_object" });
  });
});
