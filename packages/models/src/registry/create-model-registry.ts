import { type BaseLlm, ConfigurationError, ModelRegistry } from "@agentkit/core";
import { FallbackModel, type FallbackModelOptions } from "../fallback/fallback-model.js";
import { RetryingModel, type RetryingModelOptions } from "../retry/retrying-model.js";
import { LazyModel, type ModelLoader } from "./lazy-model.js";

export const DEFAULT_OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1";

/** Settings for OpenAI-compatible endpoints (`ollama/*`, `openai-compatible/*`). */
export interface OpenAICompatibleSettings {
  /** Base URL; defaults to `OPENAI_COMPATIBLE_BASE_URL` (openai-compatible/*) or `OLLAMA_HOST` + "/v1". */
  baseURL?: string;
  /** Defaults to `OPENAI_COMPATIBLE_API_KEY`, then "ollama" (local servers ignore it). */
  apiKey?: string;
  timeoutMs?: number;
  /** Bytes a response may hold (a JSON answer whole, a stream per event; default 64 MiB). */
  maxResponseBytes?: number;
}

/**
 * Adapter options the registry passes on. Declared here rather than taken from the adapters'
 * option types so that the root entry's types do not reference any vendor SDK.
 */
export interface AdapterSettings {
  apiKey?: string;
  baseURL?: string;
  timeoutMs?: number;
  /** Bytes a response may hold (a JSON answer whole, a stream per event; default 64 MiB). */
  maxResponseBytes?: number;
  headers?: Record<string, string>;
  /** SDK-level retries (default 0: the registry's RetryingModel retries). */
  maxRetries?: number;
}

export interface CreateModelRegistryOptions {
  /** OpenAI adapter options for `gpt-*`, `o<digit>*`, `openai/*` (over OPENAI_API_KEY / OPENAI_BASE_URL). */
  openai?: AdapterSettings & { organization?: string };
  /** Anthropic adapter options for `claude-*`, `anthropic/*` (over ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL). */
  anthropic?: AdapterSettings & { maxTokens?: number; promptCaching?: boolean; thinking?: { budgetTokens: number } };
  /**
   * Gemini adapter options for `gemini-*` (over GOOGLE_API_KEY / GEMINI_API_KEY,
   * GOOGLE_GEMINI_BASE_URL, or Vertex AI: GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION).
   */
  gemini?: Omit<AdapterSettings, "maxRetries"> & {
    vertexai?: boolean;
    project?: string;
    location?: string;
    /** google-auth-library options for Vertex AI (credentials, keyFilename, authClient, …). */
    googleAuthOptions?: Record<string, unknown>;
  };
  openaiCompatible?: OpenAICompatibleSettings;
  /** Settings of `fallback:a,b` models (circuit breakers, which failures fail over, a failover hook). */
  fallback?: Omit<FallbackModelOptions, "models" | "name">;
  /** Retry settings of every model; `false` turns retries off. */
  retry?: Omit<RetryingModelOptions, "provider"> | false;
  /** Environment to read (defaults to `process.env`), read when a model is first used. */
  env?: Record<string, string | undefined>;
}

/** The default name patterns, in the order they are registered (later ones win ties). */
export const DEFAULT_MODEL_PATTERNS = {
  gemini: [/^gemini-/],
  openai: [/^gpt-/, /^o\d/, /^openai\//],
  anthropic: [/^claude-/, /^anthropic\//],
  openaiCompatible: [/^ollama\//, /^openai-compatible\//],
  fallback: [/^fallback:/],
} as const;

/** The prefix of failover names: `fallback:gemini-2.5-flash,gpt-4o-mini`. */
export const FALLBACK_PREFIX = "fallback:";

/**
 * The model names of a `fallback:a,b,c` name, in order (whitespace around names ignored), or
 * undefined when the name is not a fallback name. An empty entry is a `ConfigurationError`.
 */
export function parseFallbackName(name: string): string[] | undefined {
  if (!name.startsWith(FALLBACK_PREFIX)) return undefined;
  const names = name
    .slice(FALLBACK_PREFIX.length)
    .split(",")
    .map((n) => n.trim());
  if (names.some((n) => n === ""))
    throw new ConfigurationError(
      `Invalid model name "${name}": write fallback:<model>,<model>,… with at least one model name and no empty ` +
        `entries.`,
    );
  return names;
}

/**
 * A `ModelRegistry` with the default patterns: `gpt-*`, `o<digit>*`, `openai/*` → OpenAI;
 * `claude-*`, `anthropic/*` → Anthropic; `ollama/*`, `openai-compatible/*` → an
 * OpenAI-compatible endpoint; `gemini-*` → Gemini (Gemini API or Vertex AI);
 * `fallback:a,b,…` → a `FallbackModel` over the models those names resolve to (in this registry).
 * Adapters and their SDKs load on a model's first use; every model retries retryable failures.
 */
export function createModelRegistry(options: CreateModelRegistryOptions = {}): ModelRegistry {
  const env = () => options.env ?? process.env;
  const wrap = (provider: string, name: string, load: ModelLoader): BaseLlm => {
    const lazy = new LazyModel(name, load);
    return options.retry === false ? lazy : new RetryingModel(lazy, { ...options.retry, provider });
  };
  const registry = new ModelRegistry();

  for (const pattern of DEFAULT_MODEL_PATTERNS.gemini) {
    registry.register(pattern, (name) =>
      wrap("gemini", name, async () => {
        const { Gemini } = await loadAdapter(() => import("../gemini/index.js"), "@google/genai");
        const { apiKey, baseURL, ...rest } = options.gemini ?? {};
        // Settings the options leave out resolve from `env` (GOOGLE_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, …).
        return new Gemini(
          { ...rest, ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseUrl: baseURL } : {}), model: name },
          env(),
        );
      }),
    );
  }
  for (const pattern of DEFAULT_MODEL_PATTERNS.openai) {
    registry.register(pattern, (name) =>
      wrap("openai", name, async () => {
        const { OpenAIModel } = await loadAdapter(() => import("../openai/index.js"), "openai");
        const e = env();
        return new OpenAIModel({
          ...withDefined({ apiKey: e.OPENAI_API_KEY, baseURL: e.OPENAI_BASE_URL }),
          ...options.openai,
          model: name,
        });
      }),
    );
  }
  for (const pattern of DEFAULT_MODEL_PATTERNS.anthropic) {
    registry.register(pattern, (name) =>
      wrap("anthropic", name, async () => {
        const { AnthropicModel } = await loadAdapter(() => import("../anthropic/index.js"), "@anthropic-ai/sdk");
        const e = env();
        return new AnthropicModel({
          ...withDefined({ apiKey: e.ANTHROPIC_API_KEY, baseURL: e.ANTHROPIC_BASE_URL }),
          ...options.anthropic,
          model: name,
        });
      }),
    );
  }
  for (const pattern of DEFAULT_MODEL_PATTERNS.openaiCompatible) {
    registry.register(pattern, (name) =>
      wrap("openai-compatible", name, async () => {
        const { OpenAIModel } = await loadAdapter(() => import("../openai/index.js"), "openai");
        const { baseURL, apiKey } = openAICompatibleEndpoint(name, options.openaiCompatible, env());
        const { timeoutMs, maxResponseBytes } = options.openaiCompatible ?? {};
        return new OpenAIModel({
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(maxResponseBytes !== undefined ? { maxResponseBytes } : {}),
          model: stripPrefix(name),
          baseURL,
          apiKey,
        });
      }),
    );
  }
  for (const pattern of DEFAULT_MODEL_PATTERNS.fallback) {
    registry.register(
      pattern,
      (name) => {
        const names = parseFallbackName(name) ?? [];
        // Each name resolves here, so it shares the registry's instance (and its retries) and may use
        // patterns registered after this one.
        const models = names.map((inner) => {
          try {
            return registry.resolve(inner);
          } catch (error) {
            if (error instanceof ConfigurationError)
              throw new ConfigurationError(`In "${name}": ${error.message}`, { cause: error });
            throw error;
          }
        });
        return new FallbackModel({ ...options.fallback, models, name });
      },
      { dependencies: (name) => parseFallbackName(name) ?? [] },
    );
  }
  return registry;
}

/**
 * Where an `ollama/*` or `openai-compatible/*` model lives. Ollama: `OLLAMA_HOST` (host:port
 * or a URL) + "/v1", default http://127.0.0.1:11434/v1. Other endpoints:
 * `OPENAI_COMPATIBLE_BASE_URL`, else the Ollama address.
 */
export function openAICompatibleEndpoint(
  name: string,
  settings: OpenAICompatibleSettings = {},
  env: Record<string, string | undefined> = process.env,
): { baseURL: string; apiKey: string } {
  const apiKey = settings.apiKey ?? nonEmpty(env.OPENAI_COMPATIBLE_API_KEY) ?? "ollama";
  if (settings.baseURL) return { baseURL: settings.baseURL, apiKey };
  const compatible = name.startsWith("openai-compatible/") ? nonEmpty(env.OPENAI_COMPATIBLE_BASE_URL) : undefined;
  return { baseURL: compatible ?? ollamaBaseUrl(env.OLLAMA_HOST), apiKey };
}

function ollamaBaseUrl(host: string | undefined): string {
  const value = nonEmpty(host?.trim());
  if (!value) return DEFAULT_OLLAMA_BASE_URL;
  const url = (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`).replace(/\/+$/, "");
  return url.endsWith("/v1") ? url : `${url}/v1`;
}

function stripPrefix(name: string): string {
  const slash = name.indexOf("/");
  return slash === -1 ? name : name.slice(slash + 1);
}

/** Imports an adapter module; a missing vendor SDK becomes a ConfigurationError saying what to install. */
async function loadAdapter<T>(load: () => Promise<T>, sdk: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(sdk)) {
      throw new ConfigurationError(
        `The "${sdk}" package is not installed; install it (e.g. pnpm add ${sdk}) to use this model.`,
        { cause: error },
      );
    }
    throw error;
  }
}

function withDefined<T extends Record<string, string | undefined>>(values: T): Partial<Record<keyof T, string>> {
  const out: Partial<Record<keyof T, string>> = {};
  for (const [key, value] of Object.entries(values)) if (value) out[key as keyof T] = value;
  return out;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.length > 0 ? value : undefined;
}
