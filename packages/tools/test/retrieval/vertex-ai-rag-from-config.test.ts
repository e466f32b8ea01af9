import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigurationError, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { VertexAiRagRetrieval, vertexAiRagRetrievalFromConfig } from "../../src/retrieval/index.js";
import { json, startServer } from "../openapi/http-test-server.js";
import { startRunner } from "../helpers.js";

const ENV = "AGENTKIT_TEST_RAG_TOKEN";
const corpus = (id: string, location = "europe-west4") => `projects/p1/locations/${location}/ragCorpora/${id}`;

let server: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  server = await startServer((_req, res) =>
    json(res, 200, { contexts: { contexts: [{ sourceUri: "gs://b/doc.pdf", text: "RAG passage", score: 0.2 }] } }),
  );
});
afterAll(async () => {
  delete process.env[ENV];
  await server.close();
});

describe("vertexAiRagRetrievalFromConfig (YAML agent configs, ADK's VertexAiRagRetrieval args)", () => {
  it("builds the tool from snake_case args; with a non-Gemini model its calls reach the REST endpoint with the token from the environment", async () => {
    process.env[ENV] = "rag-token";
    const rag = vertexAiRagRetrievalFromConfig({
      name: "search_manuals",
      description: "Searches the manuals.",
      rag_resources: [{ rag_corpus: corpus("1"), rag_file_ids: ["f1"] }],
      rag_corpora: [corpus("2")],
      similarity_top_k: 4,
      vector_distance_threshold: 0.5,
      endpoint: server.url,
      access_token_env: ENV,
      timeout: 10,
    });
    expect(rag).toBeInstanceOf(VertexAiRagRetrieval);
    expect(rag.getDeclaration()?.description).toBe("Searches the manuals.");
    const model = new ScriptedModel({
      model: "local-model",
      steps: [ScriptedModel.functionCall("search_manuals", { query: "reset" }), ScriptedModel.text("ok")],
    });
    const { runner, send } = await startRunner(new LlmAgent({ name: "rag", model, tools: [rag] }));
    try {
      const events = await send("how do I reset it?");
      const response = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse)
        ?.functionResponse?.response;
      expect(response).toEqual({ results: [{ text: "RAG passage", source: "gs://b/doc.pdf", score: 0.2 }] });
    } finally {
      await runner.close();
    }
    const req = server.requests.at(-1)!;
    expect(req.url).toBe("/v1/projects/p1/locations/europe-west4:retrieveContexts");
    expect(req.headers.authorization).toBe("Bearer rag-token");
    expect(JSON.parse(req.body)).toEqual({
      vertexRagStore: {
        ragResources: [{ ragCorpus: corpus("1"), ragFileIds: ["f1"] }, { ragCorpus: corpus("2") }],
        vectorDistanceThreshold: 0.5,
      },
      query: { text: "reset", similarityTopK: 4 },
    });
  });

  it("accepts camelCase args (and builds the vertexRagStore config Gemini gets)", () => {
    const rag = vertexAiRagRetrievalFromConfig({ ragCorpora: [corpus("3")], similarityTopK: 2 });
    expect(rag.name).toBe("retrieve_rag_documentation");
    expect(rag.vertexRagStore).toEqual({ ragResources: [{ ragCorpus: corpus("3") }], similarityTopK: 2 });
  });

  it("rejects bad args with a ConfigurationError naming the field", () => {
    const fails = (args: Record<string, unknown>, pattern: RegExp) => {
      let error: unknown;
      try {
        vertexAiRagRetrievalFromConfig(args);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(pattern);
    };
    fails({}, /need rag_corpora or rag_resources/);
    fails({ rag_corpora: [corpus("1")], max_response_bytes: -1 }, /max_response_bytes:/);
    fails({ rag_corpora: ["my-corpus"] }, /rag_corpora\.0: a full resource name/);
    fails({ rag_resources: [{ rag_corpus: corpus("1"), files: [] }] }, /rag_resources\.0: Unrecognized key: "files"/);
    fails(
      { rag_corpora: [corpus("1"), corpus("2", "us-central1")] },
      /rag_corpora\/rag_resources: all corpora must be in one location; got europe-west4, us-central1/,
    );
    fails({ rag_corpora: [corpus("1")], similarity_top_k: 0 }, /similarity_top_k:/);
    fails({ rag_corpora: [corpus("1")], name: "bad name" }, /name:/);
    fails(
      { rag_corpora: [corpus("1")], access_token: "a", access_token_env: ENV },
      /access_token or access_token_env, not both/,
    );
    fails(
      { rag_corpora: [corpus("1")], access_token_env: "AGENTKIT_TEST_UNSET_VARIABLE" },
      /access_token_env: environment variable/,
    );
    fails({ rag_corpora: [corpus("1")], endpoint: "not a url" }, /endpoint:/);
    fails({ rag_corpora: [corpus("1")], top_k: 3 }, /Unrecognized key: "top_k"/);
  });
});
