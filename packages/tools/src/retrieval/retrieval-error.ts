import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** Embedding or retrieval failed (embedder returned the wrong shape, the RAG endpoint refused the query). */
export class RetrievalError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("RETRIEVAL_ERROR", message, options);
  }
}
