import type {
  Content as GenaiContent,
  Part as GenaiPart,
  GenerateContentConfig as GenaiConfig,
  GenerateContentParameters,
} from "@google/genai";
import type { Content, GenerateContentConfig, LlmRequest, Part } from "@agentkit/core";

/** Client-side ids the flow gives calls the model sent without one; Gemini never saw them. */
const CLIENT_CALL_ID_PREFIX = "adk-";

/** Config keys agentkit handles itself (never sent as they are). */
const LOCAL_CONFIG_KEYS = new Set(["abortSignal", "httpOptions"]);
/** Config keys the Gemini API (not Vertex AI) rejects; dropped there. */
const VERTEX_ONLY_CONFIG_KEYS = ["labels", "routingConfig", "modelSelectionConfig", "audioTimestamp"];

export interface GeminiRequestSettings {
  /** Vertex AI accepts a few fields the Gemini API rejects. */
  vertex: boolean;
}

/** A `gemini/` or `google/` prefix (registry or proxy names) is not part of the API model name. */
export function stripModelPrefix(model: string): string {
  return model.replace(/^(gemini|google)\//, "");
}

/**
 * An `LlmRequest` → `generateContent` parameters. Contents and config already have the Gemini
 * shape: parts (thought signatures included) and native tools (googleSearch, googleMaps,
 * urlContext, codeExecution, retrieval, …) pass through. Changed: ids the flow made up for
 * calls (`adk-…`) are removed, empty contents dropped, Vertex-only fields dropped on the
 * Gemini API, and one HTTP request per call (no SDK-side continuation or function calling).
 */
export function toGeminiRequest(
  request: LlmRequest,
  model: string,
  settings: GeminiRequestSettings,
): GenerateContentParameters {
  const name = stripModelPrefix(model);
  const contents = toGeminiContents(request.contents, settings);
  if (REQUIRES_CALL_SIGNATURES.test(name)) for (const content of contents) signUnsignedCalls(content);
  return { model: name, contents, config: toGeminiConfig(request.config, settings) };
}

/** Models that reject a model turn whose function calls carry no thought signature. */
const REQUIRES_CALL_SIGNATURES = /^gemini-3/;
/** Google's documented placeholder for calls that did not come from this model (other models, edited history). */
export const SKIP_SIGNATURE_VALIDATION = "skip_thought_signature_validator";

/** Gives the first call of a model turn without any signature the documented placeholder. */
function signUnsignedCalls(content: GenaiContent): void {
  if (content.role !== "model" || !content.parts) return;
  if (content.parts.some((p) => p.thoughtSignature)) return;
  const first = content.parts.find((p) => p.functionCall);
  if (first) first.thoughtSignature = SKIP_SIGNATURE_VALIDATION;
}

export function toGeminiContents(contents: Content[], settings: GeminiRequestSettings): GenaiContent[] {
  const out: GenaiContent[] = [];
  for (const content of contents) {
    const parts = (content.parts ?? []).map((part) => toGeminiPart(part, settings));
    if (parts.length === 0) continue;
    out.push({ role: content.role === "model" ? "model" : "user", parts: parts as GenaiPart[] });
  }
  return out;
}

function toGeminiPart(part: Part, settings: GeminiRequestSettings): Part {
  const copy: Part = { ...part };
  if (part.functionCall) {
    const { id, partialArgs, willContinue, ...call } = part.functionCall;
    copy.functionCall = {
      ...call,
      ...(id && !id.startsWith(CLIENT_CALL_ID_PREFIX) ? { id } : {}),
      ...(settings.vertex && partialArgs !== undefined ? { partialArgs } : {}),
      ...(settings.vertex && willContinue !== undefined ? { willContinue } : {}),
    };
  }
  if (part.functionResponse) {
    const { id, ...response } = part.functionResponse;
    copy.functionResponse = { ...response, ...(id && !id.startsWith(CLIENT_CALL_ID_PREFIX) ? { id } : {}) };
  }
  return copy;
}

export function toGeminiConfig(config: GenerateContentConfig, settings: GeminiRequestSettings): GenaiConfig {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined || LOCAL_CONFIG_KEYS.has(key)) continue;
    if (!settings.vertex && VERTEX_ONLY_CONFIG_KEYS.includes(key)) continue;
    out[key] = value;
  }
  if (config.abortSignal) out.abortSignal = config.abortSignal;
  // agentkit's flow runs tools and its retry layer re-sends; the SDK does neither.
  out.automaticFunctionCalling = { disable: true };
  out.automaticContinuation = false;
  return out as GenaiConfig;
}

/** Only the config fields a cached request may still carry (the rest live in the cache). */
export function withoutCachedFields(config: GenaiConfig): GenaiConfig {
  const { systemInstruction: _s, tools: _t, toolConfig: _c, ...rest } = config;
  return rest;
}
