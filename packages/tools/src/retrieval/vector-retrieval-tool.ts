import { ConfigurationError, type ToolContext } from "@agentkit/core";
import { z } from "zod";
import { BaseRetrievalTool } from "./base-retrieval-tool.js";
import { chunkText, type ChunkOptions } from "./chunk-text.js";
import { InMemoryVectorStore, type Metadata, type VectorMatch, type VectorStore } from "./in-memory-vector-store.js";
import { RetrievalError } from "./retrieval-error.js";

/** Turns texts into vectors (one per text, same order). */
export type EmbedFunction = (texts: string[], options?: { signal?: AbortSignal }) => Promise<number[][]>;

/** An embedding model adapter: anything with `embed(texts)`. */
export interface EmbeddingModel {
  embed: EmbedFunction;
}

export interface RetrievalDocument {
  /** Default: a generated id. Chunks get `${id}#${n}`. */
  id?: string;
  text: string;
  metadata?: Metadata;
}

const optionsSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().min(1),
    embed: z.union([
      z.custom<EmbedFunction>((v) => typeof v === "function"),
      z.custom<EmbeddingModel>(
        (v) => typeof v === "object" && v !== null && typeof (v as EmbeddingModel).embed === "function",
      ),
    ]),
    store: z
      .custom<VectorStore>(
        (v) => typeof v === "object" && v !== null && typeof (v as VectorStore).search === "function",
      )
      .optional(),
    topK: z.number().int().positive().default(5),
    minScore: z.number().min(-1).max(1).optional(),
    filter: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .strict();

export type VectorRetrievalToolOptions = z.input<typeof optionsSchema>;

/**
 * Retrieval over your own documents: `addDocuments` chunks and embeds them into the store; a
 * call embeds the query and returns the `topK` most similar chunks (cosine similarity).
 */
export class VectorRetrievalTool extends BaseRetrievalTool {
  readonly store: VectorStore;
  private readonly embedFn: EmbedFunction;
  private readonly o: z.output<typeof optionsSchema>;
  private nextId = 0;

  constructor(options: VectorRetrievalToolOptions) {
    const parsed = optionsSchema.safeParse(options ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid VectorRetrievalTool options: ${detail}.`);
    }
    super({ name: parsed.data.name, description: parsed.data.description });
    this.o = parsed.data;
    const embed = parsed.data.embed;
    this.embedFn = typeof embed === "function" ? embed : (texts, opts) => embed.embed(texts, opts);
    this.store = parsed.data.store ?? new InMemoryVectorStore();
  }

  /** Chunks, embeds and stores documents; returns the ids of the stored chunks. */
  async addDocuments(
    documents: RetrievalDocument[],
    options: ChunkOptions & { signal?: AbortSignal } = {},
  ): Promise<string[]> {
    const records: { id: string; text: string; metadata: Metadata }[] = [];
    for (const doc of documents) {
      if (typeof doc?.text !== "string") throw new ConfigurationError("Every document needs a string `text`.");
      const base = doc.id ?? `doc-${++this.nextId}`;
      for (const [n, text] of chunkText(doc.text, options).entries())
        records.push({ id: `${base}#${n}`, text, metadata: { ...doc.metadata, source: base, chunk: n } });
    }
    if (records.length === 0) return [];
    const vectors = await this.embed(
      records.map((r) => r.text),
      options.signal,
    );
    await this.store.upsert(records.map((r, i) => ({ ...r, vector: vectors[i]! })));
    return records.map((r) => r.id);
  }

  /** The best matching chunks for a query (also usable without a runner). */
  async search(
    query: string,
    { signal, topK, filter }: { signal?: AbortSignal; topK?: number; filter?: Metadata } = {},
  ): Promise<VectorMatch[]> {
    const [vector] = await this.embed([query], signal);
    return this.store.search(vector!, {
      topK: topK ?? this.o.topK,
      ...((filter ?? this.o.filter) ? { filter: filter ?? this.o.filter } : {}),
      ...(this.o.minScore !== undefined ? { minScore: this.o.minScore } : {}),
    });
  }

  override async retrieve(query: string, toolContext?: ToolContext): Promise<unknown> {
    const matches = await this.search(query, {
      ...(toolContext?.invocation.signal ? { signal: toolContext.invocation.signal } : {}),
    });
    return {
      results: matches.map((m) => ({ text: m.text, source: m.metadata.source, score: Number(m.score.toFixed(4)) })),
    };
  }

  private async embed(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    signal?.throwIfAborted();
    let vectors: unknown;
    try {
      vectors = await this.embedFn(texts, signal ? { signal } : {});
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new RetrievalError(`Embedding ${texts.length} text(s) failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!Array.isArray(vectors) || vectors.length !== texts.length || !vectors.every((v) => Array.isArray(v))) {
      throw new RetrievalError(
        `The embedder must return one vector per text (${texts.length}); it ` +
          `returned ${Array.isArray(vectors) ? vectors.length : typeof vectors}.`,
      );
    }
    return vectors as number[][];
  }
}
