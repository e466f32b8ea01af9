import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../errors/bounded-response.js";

const retryPolicySchema = z.object({
  maxAttempts: z.number().int().min(1).optional(),
  initialDelayMs: z.number().min(0).optional(),
  maxDelayMs: z.number().min(0).optional(),
  multiplier: z.number().min(1).optional(),
  jitter: z.number().min(0).max(1).optional(),
});

/** Options of `Gemini`. Settings resolve: option, then environment variable, then an error naming both. */
export const geminiOptionsSchema = z.object({
  /** Model name, e.g. `gemini-2.5-flash` (a `gemini/` or `google/` prefix is stripped). */
  model: z.string().min(1),
  /** Gemini API key; defaults to `GOOGLE_API_KEY`, then `GEMINI_API_KEY`. */
  apiKey: z.string().min(1).optional(),
  /** API base URL; defaults to `GOOGLE_GEMINI_BASE_URL`, then the SDK's default. */
  baseUrl: z.string().min(1).optional(),
  /** Use Vertex AI instead of the Gemini API; defaults to `GOOGLE_GENAI_USE_VERTEXAI` ("true"/"1"). */
  vertexai: z.boolean().optional(),
  /** Vertex AI project; defaults to `GOOGLE_CLOUD_PROJECT`. */
  project: z.string().min(1).optional(),
  /** Vertex AI location; defaults to `GOOGLE_CLOUD_LOCATION`. */
  location: z.string().min(1).optional(),
  /**
   * Vertex AI credentials as google-auth-library takes them (`credentials`, `keyFilename`,
   * `authClient`, …); without them Application Default Credentials are used.
   */
  googleAuthOptions: z.record(z.string(), z.unknown()).optional(),
  /**
   * Vertex AI service-account credentials, as the parsed JSON key or its JSON text (shorthand
   * for `googleAuthOptions.credentials`); its `project_id` stands in for a missing project.
   */
  credentials: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
  /** API version (default: v1beta for the Gemini API, the SDK's default (v1beta1) for Vertex AI). */
  apiVersion: z.string().min(1).optional(),
  /** Retries inside the model (same rules as `RetryingModel`); off by default. */
  retry: retryPolicySchema.optional(),
  /**
   * Per-request timeout in milliseconds. It also bounds opening a live session (default 30 s)
   * and deleting a context cache (default 10 s, whichever is shorter).
   */
  timeoutMs: z.number().int().positive().optional(),
  /**
   * Bytes a response may hold (a JSON answer whole, a stream per event); past it the call fails
   * with a final ProviderError and the rest is not read. Default 64 MiB.
   */
  maxResponseBytes: z.number().int().positive().default(DEFAULT_MAX_RESPONSE_BYTES),
  /** Extra headers on every request (and on the live WebSocket handshake). */
  headers: z.record(z.string(), z.string()).optional(),
});

export type GeminiOptions = z.input<typeof geminiOptionsSchema>;
export type ResolvedGeminiOptions = z.output<typeof geminiOptionsSchema>;

/** Validates options; invalid ones throw `ConfigurationError` naming the field. */
export function parseGeminiOptions(options: GeminiOptions): ResolvedGeminiOptions {
  const result = geminiOptionsSchema.safeParse(options);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ");
  throw new ConfigurationError(`Invalid Gemini options: ${issues}.`, { cause: result.error });
}

/** Where and how the client connects, every setting resolved. */
export type GeminiBackend =
  | { kind: "gemini-api"; apiKey: string; baseUrl?: string }
  | { kind: "vertex"; project: string; location: string; baseUrl?: string; googleAuthOptions?: Record<string, unknown> }
  | { kind: "vertex-express"; apiKey: string; baseUrl?: string };

/**
 * Resolves the backend: Vertex AI (option `vertexai`, then `GOOGLE_GENAI_USE_VERTEXAI`) needs a
 * project and a location (options, then `GOOGLE_CLOUD_PROJECT` / `GOOGLE_CLOUD_LOCATION`) or an
 * API key (express mode); the Gemini API needs an API key (option, then `GOOGLE_API_KEY` /
 * `GEMINI_API_KEY`). A missing setting throws `ConfigurationError` naming the option and variable.
 */
export function resolveBackend(
  options: ResolvedGeminiOptions,
  env: Record<string, string | undefined> = process.env,
): GeminiBackend {
  const baseUrl = options.baseUrl ?? nonEmpty(env.GOOGLE_GEMINI_BASE_URL);
  const withBase = baseUrl ? { baseUrl } : {};
  const vertex = options.vertexai ?? isTrue(env.GOOGLE_GENAI_USE_VERTEXAI);
  if (vertex) {
    const credentials = parseCredentials(options.credentials);
    const fromKey = typeof credentials?.project_id === "string" ? credentials.project_id : undefined;
    const project = options.project ?? nonEmpty(env.GOOGLE_CLOUD_PROJECT) ?? nonEmpty(fromKey);
    const location = options.location ?? nonEmpty(env.GOOGLE_CLOUD_LOCATION);
    if (project && location) {
      const auth = credentials ? { ...options.googleAuthOptions, credentials } : options.googleAuthOptions;
      return { kind: "vertex", project, location, ...withBase, ...(auth ? { googleAuthOptions: auth } : {}) };
    }
    // Express mode: Vertex AI with an API key and no project.
    if (options.apiKey && !project && !location) return { kind: "vertex-express", apiKey: options.apiKey, ...withBase };
    const missing = [
      ...(project ? [] : ["the `project` option or GOOGLE_CLOUD_PROJECT"]),
      ...(location ? [] : ["the `location` option or GOOGLE_CLOUD_LOCATION"]),
    ];
    throw new ConfigurationError(`Gemini on Vertex AI needs a project and a location: set ${missing.join(" and ")}.`);
  }
  const apiKey = options.apiKey ?? nonEmpty(env.GOOGLE_API_KEY) ?? nonEmpty(env.GEMINI_API_KEY);
  if (apiKey) return { kind: "gemini-api", apiKey, ...withBase };
  throw new ConfigurationError(
    "No Gemini API key: pass the `apiKey` option to Gemini or set the GOOGLE_API_KEY (or GEMINI_API_KEY) environment " +
      "variable; for Vertex AI set `vertexai: true` (or GOOGLE_GENAI_USE_VERTEXAI=true) with a project and location.",
  );
}

/** Service-account JSON text → object; text that is not a JSON object is a ConfigurationError. */
function parseCredentials(value: string | Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (value === undefined || typeof value === "object") return value;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new ConfigurationError(
    "The Gemini `credentials` option must be a service-account JSON key (an object or its JSON text).",
  );
}

function isTrue(value: string | undefined): boolean {
  return value !== undefined && ["true", "1", "yes"].includes(value.trim().toLowerCase());
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.length > 0 ? value : undefined;
}
