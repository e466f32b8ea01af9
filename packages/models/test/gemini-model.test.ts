import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError, createLlmRequest, type LlmRequest } from "@agentkit/core";
import { Gemini, geminiOptionsSchema, resolveBackend, type GeminiOptions } from "../src/gemini/index.js";
import { candidateResponse, FakeGeminiServer, fixture } from "./fixtures/gemini-server.js";
import { collect } from "@agentkit/test-support/collect";

let server: FakeGeminiServer;
let baseUrl: string;

beforeEach(async () => {
  server = new FakeGeminiServer();
  baseUrl = await server.start();
});
afterEach(async () => {
  await server.close();
});

function request(init: Partial<LlmRequest> = {}): LlmRequest {
  return createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Capital of France?" }] }], ...init });
}

describe("Gemini settings", () => {
  it("sends the API key header to the Gemini API path of the model", async () => {
    server.reply({ kind: "json", body: fixture("text-response.json") });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "key-123", baseUrl, headers: { "x-team": "blue" } });
    await collect(model.generateContentAsync(request()));
    const [recorded] = server.requests;
    expect(recorded!.method).toBe("POST");
    expect(recorded!.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(recorded!.headers["x-goog-api-key"]).toBe("key-123");
    expect(recorded!.headers["x-team"]).toBe("blue");
  });

  it("falls back to GOOGLE_API_KEY, then GEMINI_API_KEY, and GOOGLE_GEMINI_BASE_URL", async () => {
    server.reply(
      { kind: "json", body: fixture("text-response.json") },
      { kind: "json", body: fixture("text-response.json") },
    );
    const fromGoogle = new Gemini(
      { model: "gemini-x" },
      { GOOGLE_API_KEY: "g-key", GEMINI_API_KEY: "other", GOOGLE_GEMINI_BASE_URL: baseUrl },
    );
    const fromGemini = new Gemini({ model: "gemini-x" }, { GEMINI_API_KEY: "gm-key", GOOGLE_GEMINI_BASE_URL: baseUrl });
    await collect(fromGoogle.generateContentAsync(request()));
    await collect(fromGemini.generateContentAsync(request()));
    expect(server.requests.map((r) => r.headers["x-goog-api-key"])).toEqual(["g-key", "gm-key"]);
  });

  it("throws ConfigurationError naming the option and both variables when no key is set", async () => {
    const model = new Gemini({ model: "gemini-x", baseUrl }, {});
    const error = await collect(model.generateContentAsync(request())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/apiKey.*GOOGLE_API_KEY.*GEMINI_API_KEY/);
    expect(server.requests).toHaveLength(0);
  });

  it("rejects invalid options with a ConfigurationError naming the field", () => {
    expect(() => new Gemini({ model: "" })).toThrow(/Invalid Gemini options: model/);
    expect(() => new Gemini({ model: "gemini-x", timeoutMs: -1 })).toThrow(/timeoutMs/);
  });

  it("uses Vertex AI with project and location from the environment, and names what is missing", async () => {
    server.reply({ kind: "json", body: fixture("text-response.json") });
    const authClient = { getRequestHeaders: async () => new Headers({ authorization: "Bearer vertex-token" }) };
    const model = new Gemini(
      { model: "gemini-2.5-pro", baseUrl, googleAuthOptions: { authClient } },
      { GOOGLE_GENAI_USE_VERTEXAI: "true", GOOGLE_CLOUD_PROJECT: "proj-1", GOOGLE_CLOUD_LOCATION: "europe-west4" },
    );
    expect(model.vertexai).toBe(true);
    const [response] = await collect(model.generateContentAsync(request({ config: { labels: { team: "a" } } })));
    expect(response!.content?.parts?.[0]?.text).toBe("Paris is the capital of France.");
    const recorded = server.requests[0]!;
    expect(recorded.path).toBe(
      "/v1beta1/projects/proj-1/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent",
    );
    expect(recorded.headers.authorization).toBe("Bearer vertex-token");
    expect(recorded.body.labels).toEqual({ team: "a" });

    const incomplete = new Gemini({ model: "gemini-x", vertexai: true }, { GOOGLE_CLOUD_PROJECT: "p" });
    expect(() => incomplete.vertexai).toThrow(/location.*GOOGLE_CLOUD_LOCATION/);
  });
});

describe("Gemini.generateContentAsync (non-streaming)", () => {
  it("returns text, finish reason, model version and usage with thoughts and cached tokens", async () => {
    server.reply({ kind: "json", body: fixture("text-response.json") });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const responses = await collect(
      model.generateContentAsync(request({ config: { systemInstruction: "Be brief.", temperature: 0.2 } })),
    );
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({
      content: { role: "model", parts: [{ text: "Paris is the capital of France." }] },
      finishReason: "STOP",
      modelVersion: "gemini-2.5-flash",
      usageMetadata: {
        promptTokenCount: 12,
        candidatesTokenCount: 8,
        totalTokenCount: 44,
        thoughtsTokenCount: 24,
        cachedContentTokenCount: 4,
      },
    });
    expect(responses[0]!.partial).toBeUndefined();
    expect(server.lastBody.systemInstruction).toEqual({ parts: [{ text: "Be brief." }], role: "user" });
    expect(server.lastBody.generationConfig).toMatchObject({ temperature: 0.2 });
  });

  it("keeps function call ids, parallel calls and the thought signature, and round-trips them", async () => {
    server.reply(
      { kind: "json", body: fixture("parallel-function-calls-thought.json") },
      { kind: "json", body: candidateResponse([{ text: "Sunny in both." }]) },
    );
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const tools = [
      {
        functionDeclarations: [
          { name: "get_weather", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } } },
        ],
      },
    ];
    const [first] = await collect(model.generateContentAsync(request({ config: { tools } })));
    const parts = first!.content!.parts!;
    expect(parts[0]).toEqual({ text: "The user wants the weather in two cities; call the tool twice.", thought: true });
    expect(parts[1]).toEqual({
      functionCall: { id: "call-paris", name: "get_weather", args: { city: "Paris" } },
      thoughtSignature: "CiQBVKhc7mFq0K3ZyAmGm1xd7kXz4pRh4G2w1wq4c9y3L2aBCDE=",
    });
    expect(parts[2]).toEqual({ functionCall: { id: "call-rome", name: "get_weather", args: { city: "Rome" } } });
    expect(server.lastBody.tools).toEqual(tools);

    const history = [
      { role: "user", parts: [{ text: "Weather in Paris and Rome?" }] },
      first!.content!,
      {
        role: "user",
        parts: [
          { functionResponse: { id: "call-paris", name: "get_weather", response: { sky: "sunny" } } },
          { functionResponse: { id: "call-rome", name: "get_weather", response: { sky: "sunny" } } },
        ],
      },
    ];
    await collect(model.generateContentAsync(request({ contents: history, config: { tools } })));
    const sent = server.lastBody.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    expect(sent.map((c) => c.role)).toEqual(["user", "model", "user"]);
    expect(sent[1]!.parts[1]).toEqual({
      functionCall: { id: "call-paris", name: "get_weather", args: { city: "Paris" } },
      thoughtSignature: "CiQBVKhc7mFq0K3ZyAmGm1xd7kXz4pRh4G2w1wq4c9y3L2aBCDE=",
    });
    expect(sent[2]!.parts[1]).toEqual({
      functionResponse: { id: "call-rome", name: "get_weather", response: { sky: "sunny" } },
    });
  });

  it("drops the adk- ids the flow invents for calls Gemini sent without one", async () => {
    server.reply({ kind: "json", body: candidateResponse([{ text: "ok" }]) });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    await collect(
      model.generateContentAsync(
        request({
          contents: [
            { role: "user", parts: [{ text: "go" }] },
            { role: "model", parts: [{ functionCall: { id: "adk-1f2e", name: "f", args: {} } }] },
            { role: "user", parts: [{ functionResponse: { id: "adk-1f2e", name: "f", response: { ok: true } } }] },
          ],
        }),
      ),
    );
    const sent = server.lastBody.contents as Array<{ parts: Array<Record<string, unknown>> }>;
    expect(sent[1]!.parts[0]).toEqual({ functionCall: { name: "f", args: {} } });
    expect(sent[2]!.parts[0]).toEqual({ functionResponse: { name: "f", response: { ok: true } } });
  });

  it("passes built-in tools through as native tools next to function declarations", async () => {
    server.reply({ kind: "json", body: fixture("grounding-search.json") });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const tools = [
      { googleSearch: {} },
      { googleMaps: { enableWidget: true } },
      { urlContext: {} },
      { codeExecution: {} },
      { functionDeclarations: [{ name: "lookup", description: "Looks up" }] },
    ];
    const [response] = await collect(model.generateContentAsync(request({ config: { tools } })));
    expect(server.lastBody.tools).toEqual(tools);
    expect(response!.groundingMetadata).toMatchObject({
      webSearchQueries: ["who won euro 2024"],
      groundingChunks: [{ web: { title: "uefa.com" } }],
    });
    expect(response!.usageMetadata?.toolUsePromptTokenCount).toBe(120);
  });

  it("passes the Vertex AI Search retrieval tool on Vertex AI and refuses it on the Gemini API", async () => {
    server.reply({ kind: "json", body: fixture("text-response.json") });
    const retrieval = {
      retrieval: {
        vertexAiSearch: { datastore: "projects/p/locations/global/collections/default_collection/dataStores/ds" },
      },
    };
    const vertex = new Gemini({ model: "gemini-2.5-flash", apiKey: "express-key", vertexai: true, baseUrl });
    await collect(
      vertex.generateContentAsync(request({ config: { tools: [retrieval, { enterpriseWebSearch: {} }] } })),
    );
    expect(server.lastBody.tools).toEqual([retrieval, { enterpriseWebSearch: {} }]);

    const geminiApi = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const error = await collect(geminiApi.generateContentAsync(request({ config: { tools: [retrieval] } }))).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/retrieval/);
    expect(server.generateRequests).toHaveLength(1);
  });

  it("returns executableCode and codeExecutionResult parts in order", async () => {
    server.reply({ kind: "json", body: fixture("code-execution.json") });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const [response] = await collect(
      model.generateContentAsync(request({ config: { tools: [{ codeExecution: {} }] } })),
    );
    expect(response!.content!.parts).toEqual([
      { text: "I will compute it." },
      { executableCode: { language: "PYTHON", code: "print(sum(range(1, 101)))\n" } },
      { codeExecutionResult: { outcome: "OUTCOME_OK", output: "5050\n" } },
      { text: "The sum is 5050." },
    ]);
  });

  it("sends structured output (responseJsonSchema and responseSchema) together with tools", async () => {
    server.reply(
      { kind: "json", body: candidateResponse([{ text: '{"city":"Paris"}' }]) },
      { kind: "json", body: candidateResponse([{ text: '{"n":1}' }]) },
    );
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const jsonSchema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const tools = [{ functionDeclarations: [{ name: "lookup" }] }, { googleSearch: {} }];
    const [response] = await collect(
      model.generateContentAsync(
        request({ config: { tools, responseMimeType: "application/json", responseJsonSchema: jsonSchema } }),
      ),
    );
    expect(JSON.parse(response!.content!.parts![0]!.text!)).toEqual({ city: "Paris" });
    expect(server.lastBody.generationConfig).toMatchObject({
      responseMimeType: "application/json",
      responseJsonSchema: jsonSchema,
    });
    expect(server.lastBody.tools).toEqual(tools);

    await collect(
      model.generateContentAsync(
        request({
          config: {
            responseMimeType: "application/json",
            responseSchema: { type: "OBJECT", properties: { n: { type: "INTEGER" } } },
          },
        }),
      ),
    );
    expect(server.lastBody.generationConfig).toMatchObject({
      responseSchema: { type: "OBJECT", properties: { n: { type: "INTEGER" } } },
    });
  });

  it("turns a safety block into errorCode and errorMessage instead of throwing", async () => {
    server.reply(
      { kind: "json", body: fixture("safety-blocked.json") },
      { kind: "json", body: fixture("prompt-blocked.json") },
    );
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const [safety] = await collect(model.generateContentAsync(request()));
    expect(safety).toMatchObject({ finishReason: "SAFETY", errorCode: "SAFETY" });
    expect(safety!.content).toBeUndefined();
    expect(safety!.errorMessage).toMatch(/SAFETY/);
    const [prompt] = await collect(model.generateContentAsync(request()));
    expect(prompt).toMatchObject({
      errorCode: "PROHIBITED_CONTENT",
      errorMessage: "The prompt was blocked because it contains prohibited content.",
    });
  });

  it("maps MAX_TOKENS as a normal finish reason (not an error)", async () => {
    server.reply({ kind: "json", body: candidateResponse([{ text: "Once upon" }], { finishReason: "MAX_TOKENS" }) });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const [response] = await collect(model.generateContentAsync(request({ config: { maxOutputTokens: 3 } })));
    expect(response).toMatchObject({ finishReason: "MAX_TOKENS" });
    expect(response!.errorCode).toBeUndefined();
    expect(server.lastBody.generationConfig).toMatchObject({ maxOutputTokens: 3 });
  });

  it("throws GenAiFieldMissingError for a response without candidates or feedback", async () => {
    server.reply({ kind: "json", body: { usageMetadata: { promptTokenCount: 3 }, modelVersion: "gemini-2.5-flash" } });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    await expect(collect(model.generateContentAsync(request()))).rejects.toMatchObject({ code: "GENAI_FIELD_MISSING" });
  });

  it("strips a gemini/ prefix from the model name", async () => {
    server.reply({ kind: "json", body: fixture("text-response.json") });
    const model = new Gemini({ model: "gemini/gemini-2.5-flash-lite", apiKey: "k", baseUrl });
    expect(model.model).toBe("gemini-2.5-flash-lite");
    await collect(
      model.generateContentAsync(createLlmRequest({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })),
    );
    expect(server.requests[0]!.path).toBe("/v1beta/models/gemini-2.5-flash-lite:generateContent");
  });
});

describe("resolveBackend", () => {
  const parse = (o: GeminiOptions) => geminiOptionsSchema.parse(o);

  it("takes Vertex AI credentials as JSON text and the project from the key when none is set", () => {
    const key = JSON.stringify({
      type: "service_account",
      project_id: "key-project",
      client_email: "sa@key-project.iam.gserviceaccount.com",
    });
    const backend = resolveBackend(
      parse({ model: "m", vertexai: true, location: "us-central1", credentials: key }),
      {},
    );
    expect(backend).toEqual({
      kind: "vertex",
      project: "key-project",
      location: "us-central1",
      googleAuthOptions: {
        credentials: {
          type: "service_account",
          project_id: "key-project",
          client_email: "sa@key-project.iam.gserviceaccount.com",
        },
      },
    });
  });

  it("prefers options over the environment and rejects credentials that are not JSON", () => {
    expect(
      resolveBackend(parse({ model: "m", project: "opt" }), {
        GOOGLE_GENAI_USE_VERTEXAI: "1",
        GOOGLE_CLOUD_PROJECT: "env",
        GOOGLE_CLOUD_LOCATION: "eu",
      }),
    ).toMatchObject({ kind: "vertex", project: "opt", location: "eu" });
    expect(
      resolveBackend(parse({ model: "m", vertexai: false, apiKey: "k" }), { GOOGLE_GENAI_USE_VERTEXAI: "true" }),
    ).toEqual({ kind: "gemini-api", apiKey: "k" });
    expect(() =>
      resolveBackend(parse({ model: "m", vertexai: true, location: "eu", credentials: "not json" }), {}),
    ).toThrow(ConfigurationError);
  });
});

describe("Gemini.connect", () => {
  it("refuses an already aborted signal with CANCELLED before opening anything", async () => {
    const controller = new AbortController();
    controller.abort();
    const model = new Gemini({ model: "gemini-live", apiKey: "k", baseUrl });
    await expect(model.connect(createLlmRequest(), { signal: controller.signal })).rejects.toMatchObject({
      category: "CANCELLED",
    });
  });
});
