import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigurationError, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  chunkText,
  InMemoryVectorStore,
  RetrievalError,
  VectorRetrievalTool,
  VertexAiRagRetrieval,
} from "../../src/retrieval/index.js";
import { startRunner } from "../helpers.js";

/** Deterministic local embedding: hashed bag of lower-cased words, 64 dimensions. */
const DIM = 64;
async function hashedBagOfWords(texts: string[]): Promise<number[][]> {
  return texts.map((text) => {
    const v = new Array<number>(DIM).fill(0);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? [])
      v[createHash("sha256").update(word).digest()[0]! % DIM]! += 1;
    return v;
  });
}

const DOCS = [
  { id: "tea", text: "Green tea is brewed at eighty degrees for two minutes.", metadata: { topic: "drinks" } },
  { id: "bike", text: "Inflate bicycle tyres to the pressure printed on the sidewall.", metadata: { topic: "bikes" } },
  {
    id: "coffee",
    text: "Espresso coffee needs finely ground beans and nine bar of pressure.",
    metadata: { topic: "drinks" },
  },
];

describe("chunkText", () => {
  it("splits by size at word boundaries with overlap", () => {
    const text = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
    const chunks = chunkText(text, { chunkSize: 20, chunkOverlap: 6 });
    expect(chunks.every((c) => c.length <= 20)).toBe(true);
    // Whole words only; each chunk repeats the previous chunk's last word.
    expect(chunks).toEqual(["alpha beta gamma", "gamma delta epsilon", "epsilon zeta eta", "eta theta iota kappa"]);
    // Text without spaces is cut by size, still overlapping and always progressing.
    expect(chunkText("abcdefghijklmnopqrstuvwxy", { chunkSize: 10, chunkOverlap: 3 })).toEqual([
      "abcdefghij",
      "hijklmnopq",
      "opqrstuvwx",
      "vwxy",
    ]);
    expect(chunkText("short")).toEqual(["short"]);
    expect(() => chunkText("x", { chunkSize: 10, chunkOverlap: 10 })).toThrow(ConfigurationError);
  });
});

describe("InMemoryVectorStore", () => {
  it("ranks by cosine similarity, honours topK, metadata filters and minScore, and checks dimensions", async () => {
    const store = new InMemoryVectorStore();
    await store.upsert([
      { id: "a", text: "A", vector: [1, 0], metadata: { k: "x" } },
      { id: "b", text: "B", vector: [1, 1], metadata: { k: "y" } },
      { id: "c", text: "C", vector: [0, 1], metadata: { k: "x" } },
    ]);
    expect((await store.search([1, 0.1], { topK: 2 })).map((m) => m.id)).toEqual(["a", "b"]);
    expect((await store.search([1, 0.1], { filter: { k: "x" } })).map((m) => m.id)).toEqual(["a", "c"]);
    expect((await store.search([0, 1], { minScore: 0.5 })).map((m) => [m.id, Number(m.score.toFixed(3))])).toEqual([
      ["c", 1],
      ["b", Number(Math.SQRT1_2.toFixed(3))],
    ]);
    await expect(store.search([1, 0, 0])).rejects.toThrow(/3 dimensions/);
    await store.delete(["a"]);
    expect(await store.size()).toBe(2);
  });
});

describe("VectorRetrievalTool", () => {
  it("retrieves the relevant chunk through an LlmAgent run", async () => {
    const tool = new VectorRetrievalTool({
      name: "search_notes",
      description: "Searches the notes.",
      embed: hashedBagOfWords,
      topK: 1,
    });
    expect(await tool.addDocuments(DOCS)).toEqual(["tea#0", "bike#0", "coffee#0"]);
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("search_notes", { query: "how hot to brew green tea" }),
        ScriptedModel.text("Eighty degrees."),
      ],
    });
    const { runner, send } = await startRunner(new LlmAgent({ name: "notes", model, tools: [tool] }));
    try {
      const events = await send("tea temperature?");
      const response = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse)!.functionResponse!
        .response as {
        results: { text: string; source: string; score: number }[];
      };
      expect(response.results).toHaveLength(1);
      expect(response.results[0]!.source).toBe("tea");
      expect(response.results[0]!.text).toBe(DOCS[0]!.text);
      expect(model.requests[0]!.config.tools?.[0]?.functionDeclarations?.[0]?.parametersJsonSchema).toMatchObject({
        required: ["query"],
      });
    } finally {
      await runner.close();
    }
  });

  it("accepts an embedding-model object, filters by metadata, and reports a broken embedder", async () => {
    const calls: string[][] = [];
    const tool = new VectorRetrievalTool({
      name: "kb",
      description: "kb",
      embed: {
        embed: async (texts) => {
          calls.push(texts);
          return hashedBagOfWords(texts);
        },
      },
      filter: { topic: "drinks" },
    });
    await tool.addDocuments(DOCS);
    const matches = await tool.search("pressure");
    expect(matches.map((m) => m.metadata.source)).not.toContain("bike");
    expect(matches[0]!.metadata.source).toBe("coffee");
    expect(calls.at(-1)).toEqual(["pressure"]);

    const broken = new VectorRetrievalTool({ name: "kb2", description: "kb", embed: async () => [[1, 2]] });
    await expect(broken.addDocuments([{ text: "one" }, { text: "two" }])).rejects.toBeInstanceOf(RetrievalError);
    expect(await broken.runAsync({ args: {}, toolContext: undefined as never })).toEqual({
      error: 'Tool kb2 needs a non-empty string argument "query".',
    });
    expect(() => new VectorRetrievalTool({ name: "bad name!", description: "x", embed: hashedBagOfWords })).toThrow(
      ConfigurationError,
    );
    expect(() => new VectorRetrievalTool({ name: "x", description: "x" } as never)).toThrow(/embed/);
  });
});

describe("VertexAiRagRetrieval", () => {
  const seen: { url: string; headers: Record<string, unknown>; body: { query: { text: string } } }[] = [];
  let base = "";
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ url: req.url ?? "", headers: req.headers, body: JSON.parse(body) });
    if (seen.at(-1)!.body.query.text === "fail") return void res.writeHead(403).end("denied");
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(
        JSON.stringify({ contexts: { contexts: [{ sourceUri: "gs://b/doc.pdf", text: "RAG passage", score: 0.12 }] } }),
      );
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const corpus = "projects/p1/locations/europe-west4/ragCorpora/42";

  it("declares the native vertexRagStore tool to Gemini 2+ models", async () => {
    const rag = new VertexAiRagRetrieval({ ragCorpora: [corpus], similarityTopK: 3, vectorDistanceThreshold: 0.6 });
    const model = new ScriptedModel({ model: "gemini-2.5-flash", steps: [ScriptedModel.text("ok")] });
    const { runner, send } = await startRunner(new LlmAgent({ name: "rag", model, tools: [rag] }));
    try {
      await send("hi");
      expect(model.requests[0]!.config.tools).toEqual([
        {
          retrieval: {
            vertexRagStore: { ragResources: [{ ragCorpus: corpus }], similarityTopK: 3, vectorDistanceThreshold: 0.6 },
          },
        },
      ]);
      expect(model.requests[0]!.toolNames).not.toContain("retrieve_rag_documentation");
    } finally {
      await runner.close();
    }
  });

  it("is a function tool for other models, calling retrieveContexts with the documented request shape", async () => {
    const rag = new VertexAiRagRetrieval({
      ragResources: [{ ragCorpus: corpus, ragFileIds: ["f1"] }],
      similarityTopK: 2,
      endpoint: base,
      accessToken: async () => "rag-token",
    });
    const model = new ScriptedModel({
      model: "claude-sonnet-4",
      steps: [
        ScriptedModel.functionCall("retrieve_rag_documentation", { query: "what is RAG" }),
        ScriptedModel.text("done"),
      ],
    });
    const { runner, send } = await startRunner(new LlmAgent({ name: "rag", model, tools: [rag] }));
    try {
      const events = await send("q");
      const response = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse)!
        .functionResponse!.response;
      expect(response).toEqual({ results: [{ text: "RAG passage", source: "gs://b/doc.pdf", score: 0.12 }] });
      const request = seen.at(-1)!;
      expect(request.url).toBe("/v1/projects/p1/locations/europe-west4:retrieveContexts");
      expect(request.headers.authorization).toBe("Bearer rag-token");
      expect(request.body).toEqual({
        vertexRagStore: { ragResources: [{ ragCorpus: corpus, ragFileIds: ["f1"] }] },
        query: { text: "what is RAG", similarityTopK: 2 },
      });
      expect(model.requests[0]!.config.tools?.some((t) => t.retrieval)).toBe(false);
    } finally {
      await runner.close();
    }
    expect(await rag.retrieve("fail")).toEqual({ error: "RAG retrieval answered HTTP 403: denied" });
  });

  it("validates corpus names", () => {
    expect(() => new VertexAiRagRetrieval({})).toThrow(/ragCorpora/);
    expect(() => new VertexAiRagRetrieval({ ragCorpora: ["corpus-1"] })).toThrow(ConfigurationError);
    expect(() => new VertexAiRagRetrieval({ ragCorpora: [corpus, "projects/p/locations/us/ragCorpora/1"] })).toThrow(
      /one location/,
    );
  });
});
