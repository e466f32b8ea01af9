import type Anthropic from "@anthropic-ai/sdk";
import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../errors/bounded-response.js";

/** Options of `AnthropicModel`. Settings resolve: option, then environment variable. */
export const anthropicModelOptionsSchema = z.object({
  /** Model name, e.g. `claude-sonnet-4-5` (an `anthropic/` prefix is stripped). */
  model: z.string().min(1),
  /** API key; defaults to `ANTHROPIC_API_KEY`. */
  apiKey: z.string().min(1).optional(),
  /** API base URL; defaults to `ANTHROPIC_BASE_URL`, then the SDK's default. */
  baseURL: z.string().min(1).optional(),
  /** `max_tokens` when the request sets no `maxOutputTokens`. */
  maxTokens: z.number().int().positive().default(4096),
  /** Extended thinking with a token budget. */
  thinking: z.object({ budgetTokens: z.number().int().positive() }).optional(),
  /** Marks the system prompt and the last tool with `cache_control` (ephemeral). */
  promptCaching: z.boolean().optional(),
  /**
   * SDK-level retries (default 0: agentkit's retry layer retries with its own error
   * mapping, so the SDK does not retry a second time).
   */
  maxRetries: z.number().int().min(0).default(0),
  /** Per-request timeout in milliseconds (SDK `timeout`). */
  timeoutMs: z.number().int().positive().optional(),
  /**
   * Bytes a response may hold (a JSON answer whole, a stream per event); past it the call fails
   * with a final ProviderError and the rest is not read. Default 64 MiB.
   */
  maxResponseBytes: z.number().int().positive().default(DEFAULT_MAX_RESPONSE_BYTES),
  /** Extra headers on every request. */
  headers: z.record(z.string(), z.string()).optional(),
  /** A ready `Anthropic` client to use instead of creating one (not closed by `close()`). */
  client: z.custom<Anthropic>((value) => typeof value === "object" && value !== null).optional(),
});

export type AnthropicModelOptions = z.input<typeof anthropicModelOptionsSchema>;
export type ResolvedAnthropicModelOptions = z.output<typeof anthropicModelOptionsSchema>;

/** Validates options; invalid ones throw `ConfigurationError` naming the field. */
export function parseAnthropicModelOptions(options: AnthropicModelOptions): ResolvedAnthropicModelOptions {
  const result = anthropicModelOptionsSchema.safeParse(options);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ");
  throw new ConfigurationError(`Invalid AnthropicModel options: ${issues}.`, { cause: result.error });
}

/** The API key: option, then `ANTHROPIC_API_KEY`; missing → `ConfigurationError` naming both. */
export function resolveApiKey(options: ResolvedAnthropicModelOptions, env: NodeJS.ProcessEnv = process.env): string {
  const key = options.apiKey ?? nonEmpty(env.ANTHROPIC_API_KEY);
  if (key) return key;
  throw new ConfigurationError(
    "No Anthropic API key: pass the `apiKey` option to AnthropicModel or set the ANTHROPIC_API_KEY environment " +
      "variable.",
  );
}

/** The base URL: option, then `ANTHROPIC_BASE_URL`, else undefined (SDK default). */
export function resolveBaseUrl(
  options: ResolvedAnthropicModelOptions,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  return options.baseURL ?? nonEmpty(env.ANTHROPIC_BASE_URL);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.length > 0 ? value : undefined;
}
