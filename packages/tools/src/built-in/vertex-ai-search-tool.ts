import { BaseTool, ConfigurationError, type LlmRequest, type ToolContext } from "@agentkit/core";
import { lazySchema } from "@agentkit/core/internal";
import { z } from "zod";
import { addNativeTool, hasOtherTools, isGemini1Model, requireGeminiModel } from "./model-names.js";

// Built when a tool is first made, not at import (`lazySchema`).
const dataStoreSpecSchema = lazySchema(() =>
  z.object({ dataStore: z.string().min(1), filter: z.string().optional() }).strict(),
);

const optionsSchema = lazySchema(() =>
  z
    .object({
      /** Full data store resource name (`projects/…/dataStores/ID`), or a bare id with `project`. */
      dataStoreId: z.string().min(1).optional(),
      /** Bare data store id (the spec's `dataStore`); needs `project`. */
      dataStore: z.string().min(1).optional(),
      /** Full search engine (app) resource name, or a bare id with `project`. */
      searchEngineId: z.string().min(1).optional(),
      /** Data stores of a search engine to search, each with an optional filter (needs `searchEngineId`). */
      dataStoreSpecs: z.array(dataStoreSpecSchema()).optional(),
      filter: z.string().optional(),
      maxResults: z.number().int().positive().optional(),
      project: z.string().min(1).optional(),
      /** Location of the data store or engine (default `global`). */
      location: z.string().min(1).optional(),
    })
    .strict(),
);

export type VertexAiSearchToolOptions = z.input<ReturnType<typeof optionsSchema>>;
export type VertexAiSearchDataStoreSpec = z.infer<ReturnType<typeof dataStoreSpecSchema>>;

/**
 * Grounds answers in a Vertex AI Search data store or search engine (the enterprise search
 * tool), run by the model: Gemini's native `{ retrieval: { vertexAiSearch: {…} } }`. Give
 * exactly one of `dataStoreId` / `dataStore` / `searchEngineId`.
 */
export class VertexAiSearchTool extends BaseTool {
  /** Full resource name of the data store, when searching one. */
  readonly datastore?: string;
  /** Full resource name of the engine, when searching one. */
  readonly engine?: string;
  readonly dataStoreSpecs?: VertexAiSearchDataStoreSpec[];
  readonly filter?: string;
  readonly maxResults?: number;

  constructor(options: VertexAiSearchToolOptions) {
    super({
      name: "vertex_ai_search",
      description: "Vertex AI Search retrieval, run by the model (Gemini built-in tool).",
    });
    const parsed = optionsSchema().safeParse(options ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid VertexAiSearchTool options: ${detail}.`);
    }
    const o = parsed.data;
    const targets = [o.dataStoreId, o.dataStore, o.searchEngineId].filter((v) => v !== undefined);
    if (targets.length !== 1) {
      throw new ConfigurationError("VertexAiSearchTool needs exactly one of dataStoreId, dataStore or searchEngineId.");
    }
    if (o.dataStoreSpecs && !o.searchEngineId) {
      throw new ConfigurationError(
        "VertexAiSearchTool: dataStoreSpecs only apply to a search engine; set searchEngineId.",
      );
    }
    const location = o.location ?? "global";
    const dataStore = o.dataStoreId ?? o.dataStore;
    if (dataStore !== undefined) this.datastore = resourceName(dataStore, "dataStores", o.project, location);
    if (o.searchEngineId !== undefined) this.engine = resourceName(o.searchEngineId, "engines", o.project, location);
    this.dataStoreSpecs = o.dataStoreSpecs;
    this.filter = o.filter;
    this.maxResults = o.maxResults;
  }

  override async processLlmRequest({
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    const hint = "Use a Gemini model, or a retrieval function tool (see @agentkit/tools/retrieval).";
    requireGeminiModel(llmRequest, "vertex_ai_search", hint, { allowGemini1: true });
    if (isGemini1Model(llmRequest.model) && hasOtherTools(llmRequest, "retrieval")) {
      throw new ConfigurationError(
        `vertex_ai_search cannot be combined with other tools on the Gemini 1 model "${llmRequest.model}". ${hint}`,
      );
    }
    const search: Record<string, unknown> = {};
    if (this.datastore) search.datastore = this.datastore;
    if (this.engine) search.engine = this.engine;
    if (this.dataStoreSpecs) search.dataStoreSpecs = this.dataStoreSpecs.map((s) => ({ ...s }));
    if (this.filter !== undefined) search.filter = this.filter;
    if (this.maxResults !== undefined) search.maxResults = this.maxResults;
    addNativeTool(llmRequest, "retrieval", { vertexAiSearch: search });
  }
}

/** A full resource name from an id: kept as is when it already is one, else built from project and location. */
function resourceName(
  id: string,
  collection: "dataStores" | "engines",
  project: string | undefined,
  location: string,
): string {
  if (id.startsWith("projects/")) return id;
  if (id.includes("/"))
    throw new ConfigurationError(
      `VertexAiSearchTool: "${id}" is neither a bare id nor a full resource name (projects/…).`,
    );
  if (!project) {
    throw new ConfigurationError(
      `VertexAiSearchTool: "${id}" is a bare id; pass project (and location) or the full resource name ` +
        `projects/…/${collection}/${id}.`,
    );
  }
  return `projects/${project}/locations/${location}/collections/default_collection/${collection}/${id}`;
}
