import { ConfigurationError, type LlmRequest, type ToolContext } from "@agentkit/core";
import { AbortScope, readBodyLimited, ResponseTooLargeError } from "@agentkit/core/internal";
import { z } from "zod";
import { isGemini1Model, isGeminiModel } from "../built-in/model-names.js";
import { BaseRetrievalTool } from "./base-retrieval-tool.js";
import { RetrievalError } from "./retrieval-error.js";

const CORPUS = /^projects\/([^/]+)\/locations\/([^/]+)\/ragCorpora\/[^/]+$/;

const ragResourceSchema = z
  .object({
    ragCorpus: z.string().regex(CORPUS, "projects/P/locations/L/ragCorpora/ID"),
    ragFileIds: z.array(z.string().min(1)).optional(),
  })
  .strict();

const optionsSchema = z
  .object({
    name: z.string().min(1).default("retrieve_rag_documentation"),
    description: z.string().min(1).default("Retrieves passages from the RAG corpus that answer the query."),
    ragCorpora: z.array(z.string().regex(CORPUS, "projects/P/locations/L/ragCorpora/ID")).optional(),
    ragResources: z.array(ragResourceSchema).optional(),
    similarityTopK: z.number().int().positive().optional(),
    vectorDistanceThreshold: z.number().optional(),
    /** REST base URL for non-Gemini models; default `https://{location}-aiplatform.googleapis.com`. */
    endpoint: z.url().optional(),
    /** Access token (or a function returning a current one) for the REST call. */
    accessToken: z
      .union([z.string().min(1), z.custom<() => Promise<string>>((v) => typeof v === "function")])
      .optional(),
    fetch: z.custom<typeof globalThis.fetch>((v) => typeof v === "function").optional(),
    timeoutMs: z.number().int().positive().default(30_000),
    /** Bytes of a retrieveContexts answer read at most (default 10 MiB: passages for a model's context). */
    maxResponseBytes: z
      .number()
      .int()
      .positive()
      .default(10 * 1024 * 1024),
  })
  .strict();

export type VertexAiRagRetrievalOptions = z.input<typeof optionsSchema>;
export type RagResource = z.infer<typeof ragResourceSchema>;

/**
 * Managed RAG retrieval (Vertex AI RAG Engine). With a Gemini 2+ model it is declared as the
 * native `retrieval.vertexRagStore` tool and the model retrieves by itself; with any other
 * model it is a function tool whose calls go to the `retrieveContexts` REST endpoint.
 */
export class VertexAiRagRetrieval extends BaseRetrievalTool {
  readonly ragResources: RagResource[];
  readonly similarityTopK?: number;
  readonly vectorDistanceThreshold?: number;
  private readonly o: z.output<typeof optionsSchema>;

  constructor(options: VertexAiRagRetrievalOptions) {
    const parsed = optionsSchema.safeParse(options ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid VertexAiRagRetrieval options: ${detail}.`);
    }
    const o = parsed.data;
    super({ name: o.name, description: o.description });
    this.ragResources = [...(o.ragResources ?? []), ...(o.ragCorpora ?? []).map((ragCorpus) => ({ ragCorpus }))];
    if (this.ragResources.length === 0)
      throw new ConfigurationError("VertexAiRagRetrieval needs `ragCorpora` or `ragResources`.");
    const locations = new Set(this.ragResources.map((r) => CORPUS.exec(r.ragCorpus)![2]));
    if (locations.size > 1)
      throw new ConfigurationError(`All RAG corpora must be in one location; got ${[...locations].join(", ")}.`);
    this.similarityTopK = o.similarityTopK;
    this.vectorDistanceThreshold = o.vectorDistanceThreshold;
    this.o = o;
  }

  /** The `vertexRagStore` config Gemini receives. */
  get vertexRagStore(): Record<string, unknown> {
    return {
      ragResources: this.ragResources.map((r) => ({ ...r })),
      ...(this.similarityTopK !== undefined ? { similarityTopK: this.similarityTopK } : {}),
      ...(this.vectorDistanceThreshold !== undefined ? { vectorDistanceThreshold: this.vectorDistanceThreshold } : {}),
    };
  }

  override async processLlmRequest(args: { toolContext: ToolContext; llmRequest: LlmRequest }): Promise<void> {
    const model = args.llmRequest.model;
    if (isGeminiModel(model) && !isGemini1Model(model)) {
      args.llmRequest.config.tools ??= [];
      args.llmRequest.config.tools.push({ retrieval: { vertexRagStore: this.vertexRagStore } });
      return;
    }
    await super.processLlmRequest(args);
  }

  override async retrieve(query: string, toolContext?: ToolContext): Promise<unknown> {
    const [, project, location] = CORPUS.exec(this.ragResources[0]!.ragCorpus)!;
    const base = (this.o.endpoint ?? `https://${location}-aiplatform.googleapis.com`).replace(/\/+$/, "");
    const url = `${base}/v1/projects/${project}/locations/${location}:retrieveContexts`;
    const body = {
      vertexRagStore: {
        ragResources: this.vertexRagStore.ragResources,
        ...(this.vectorDistanceThreshold !== undefined
          ? { vectorDistanceThreshold: this.vectorDistanceThreshold }
          : {}),
      },
      query: { text: query, ...(this.similarityTopK !== undefined ? { similarityTopK: this.similarityTopK } : {}) },
    };
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    const token = this.o.accessToken;
    if (token !== undefined) headers.authorization = `Bearer ${typeof token === "string" ? token : await token()}`;
    const runSignal = toolContext?.invocation.signal;
    // The call's own signal: the run's, and its time bound (no composite signal left on the run's).
    const call = AbortScope.under(runSignal).abortAfter(this.o.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await (this.o.fetch ?? globalThis.fetch)(url, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: call.signal,
      });
      text = await readBodyLimited(response, { maxBytes: this.o.maxResponseBytes, signal: call.signal });
    } catch (error) {
      if (runSignal?.aborted) throw error;
      if (error instanceof ResponseTooLargeError)
        throw new RetrievalError(`The RAG endpoint's answer exceeded ${error.maxBytes} bytes.`, { cause: error });
      return { error: `RAG retrieval failed: ${(error as Error).message}` };
    } finally {
      call.release();
    }
    if (!response.ok) return { error: `RAG retrieval answered HTTP ${response.status}: ${text.slice(0, 500)}` };
    let data: { contexts?: { contexts?: { text?: string; sourceUri?: string; score?: number; distance?: number }[] } };
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new RetrievalError("The RAG endpoint returned invalid JSON.", { cause: error });
    }
    const contexts = data.contexts?.contexts ?? [];
    if (contexts.length === 0) return { results: [], note: `No matching passages for: ${query}` };
    return {
      results: contexts.map((c) => ({
        text: c.text ?? "",
        ...(c.sourceUri ? { source: c.sourceUri } : {}),
        ...(c.score !== undefined ? { score: c.score } : {}),
      })),
    };
  }
}
