import type OpenAI from "openai";
import { z } from "zod";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../errors/bounded-response.js";

/** Options of `OpenAIModel`. Credentials resolve: option, then environment variable, then an error. */
export const openAIModelOptionsSchema = z.object({
  /** Model name, e.g. `gpt-4o-mini` (an `openai/` prefix is stripped). */
  model: z.string().min(1),
  /** API key; falls back to `OPENAI_API_KEY`. */
  apiKey: z.string().min(1).optional(),
  /** Base URL; falls back to `OPENAI_BASE_URL`, then the SDK default. */
  baseURL: z.string().min(1).optional(),
  organization: z.string().min(1).optional(),
  /** `chat` (Chat Completions, default; also OpenAI-compatible servers) or `responses` (Responses API, stateless). */
  api: z.enum(["chat", "responses"]).default("chat"),
  /** SDK-level retries; 0 by default because agentkit's retry layer owns retries. */
  maxRetries: z.number().int().min(0).default(0),
  timeoutMs: z.number().int().positive().optional(),
  /**
   * Bytes a response may hold (a JSON answer whole, a stream per event); past it the call fails
   * with a final ProviderError and the rest is not read. Default 64 MiB.
   */
  maxResponseBytes: z.number().int().positive().default(DEFAULT_MAX_RESPONSE_BYTES),
  headers: z.record(z.string(), z.string()).optional(),
  /** A ready client (then apiKey/baseURL/organization/headers are ignored). */
  client: z.custom<OpenAI>((value) => typeof value === "object" && value !== null).optional(),
});

export type OpenAIModelOptions = z.input<typeof openAIModelOptionsSchema>;
export type ResolvedOpenAIModelOptions = z.output<typeof openAIModelOptionsSchema>;
