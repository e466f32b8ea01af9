// Public API of @agentkit/tools/retrieval.
export { BaseRetrievalTool, type BaseRetrievalToolOptions } from "./base-retrieval-tool.js";
export {
  VectorRetrievalTool,
  type VectorRetrievalToolOptions,
  type EmbedFunction,
  type EmbeddingModel,
  type RetrievalDocument,
} from "./vector-retrieval-tool.js";
export {
  InMemoryVectorStore,
  type VectorStore,
  type VectorRecord,
  type VectorMatch,
  type VectorSearchOptions,
  type Metadata,
} from "./in-memory-vector-store.js";
export { chunkText, type ChunkOptions } from "./chunk-text.js";
export { VertexAiRagRetrieval, type VertexAiRagRetrievalOptions, type RagResource } from "./vertex-ai-rag-retrieval.js";
export { RetrievalError } from "./retrieval-error.js";
export {
  vertexAiRagRetrievalFromConfig,
  type VertexAiRagRetrievalFromConfigOptions,
} from "./vertex-ai-rag-retrieval-from-config.js";
