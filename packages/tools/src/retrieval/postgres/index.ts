// @agentkit/tools/retrieval/postgres: a VectorStore in PostgreSQL without pgvector (needs the `pg` package).
export { PostgresVectorStore, type PostgresVectorStoreOptions } from "./postgres-vector-store.js";
export { RetrievalError } from "../retrieval-error.js";
