import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";
import { envValue, parseConfigArgs, snakeKeys } from "../config-args.js";
import { VertexAiRagRetrieval } from "./vertex-ai-rag-retrieval.js";

const TOOL = "VertexAiRagRetrieval";
const corpus = z
  .string()
  .regex(
    /^projects\/[^/]+\/locations\/[^/]+\/ragCorpora\/[^/]+$/,
    "a full resource name: projects/P/locations/L/ragCorpora/ID",
  );

/**
 * The `args` of a `VertexAiRagRetrieval` entry in a YAML agent config, in ADK's field names
 * (snake_case; camelCase also accepted), plus agentkit's REST options `endpoint`,
 * `access_token` / `access_token_env` and `timeout` (seconds), `max_response_bytes`.
 */
const configSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "1 to 64 letters, digits, '_' or '-'")
    .optional(),
  description: z.string().min(1).optional(),
  rag_corpora: z.array(corpus).optional(),
  rag_resources: z
    .array(z.strictObject({ rag_corpus: corpus, rag_file_ids: z.array(z.string().min(1)).optional() }))
    .optional(),
  similarity_top_k: z.number().int().positive().optional(),
  vector_distance_threshold: z.number().optional(),
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  access_token: z.string().min(1).optional(),
  access_token_env: z.string().min(1).optional(),
  timeout: z.number().positive().optional(),
  max_response_bytes: z.number().int().positive().optional(),
});

export interface VertexAiRagRetrievalFromConfigOptions {
  fetch?: typeof globalThis.fetch;
}

/**
 * Builds a `VertexAiRagRetrieval` from a YAML agent config's `args`, for the agent loader's
 * `builtInTools` map. Bad args throw a `ConfigurationError` naming the field.
 */
export function vertexAiRagRetrievalFromConfig(
  args: Record<string, unknown> | undefined,
  options: VertexAiRagRetrievalFromConfigOptions = {},
): VertexAiRagRetrieval {
  const c = parseConfigArgs(TOOL, configSchema, snakeKeys(args ?? {}));
  if (!c.rag_corpora?.length && !c.rag_resources?.length)
    throw new ConfigurationError(`${TOOL} args need rag_corpora or rag_resources (at least one corpus).`);
  if (c.access_token !== undefined && c.access_token_env !== undefined)
    throw new ConfigurationError(`${TOOL} args: give access_token or access_token_env, not both.`);
  const locations = new Set(
    [...(c.rag_corpora ?? []), ...(c.rag_resources ?? []).map((r) => r.rag_corpus)].map((name) => name.split("/")[3]),
  );
  if (locations.size > 1)
    throw new ConfigurationError(
      `${TOOL} args: rag_corpora/rag_resources: all corpora must be in one location; got ${[...locations].join(", ")}.`,
    );
  const accessToken =
    c.access_token ??
    (c.access_token_env !== undefined ? envValue(TOOL, "access_token_env", c.access_token_env) : undefined);
  return new VertexAiRagRetrieval({
    ...(c.name ? { name: c.name } : {}),
    ...(c.description ? { description: c.description } : {}),
    ...(c.rag_corpora ? { ragCorpora: c.rag_corpora } : {}),
    ...(c.rag_resources
      ? {
          ragResources: c.rag_resources.map((r) => ({
            ragCorpus: r.rag_corpus,
            ...(r.rag_file_ids ? { ragFileIds: r.rag_file_ids } : {}),
          })),
        }
      : {}),
    ...(c.similarity_top_k !== undefined ? { similarityTopK: c.similarity_top_k } : {}),
    ...(c.vector_distance_threshold !== undefined ? { vectorDistanceThreshold: c.vector_distance_threshold } : {}),
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    ...(accessToken !== undefined ? { accessToken } : {}),
    ...(c.timeout ? { timeoutMs: Math.max(1, Math.round(c.timeout * 1000)) } : {}),
    ...(c.max_response_bytes ? { maxResponseBytes: c.max_response_bytes } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
