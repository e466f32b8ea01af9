import { ConfigurationError, type LlmRequest } from "@agentkit/core";

// A Gemini name, optionally behind a resource path: `models/…`, `google/…`,
// `projects/P/locations/L/[publishers/google/]models/…`. Other routed names (e.g.
// `openai-compatible/gemini-…`) go to non-Gemini endpoints and do not count.
const GEMINI_NAME =
  /^(?:projects\/[^/]+\/locations\/[^/]+\/(?:publishers\/[^/]+\/)?models\/|models\/|google\/)?(gemini-[^/]*)$/i;

/** The bare Gemini model id of a name (`gemini-2.5-flash`), or undefined for non-Gemini names. */
export function geminiModelId(model: string | undefined): string | undefined {
  return model === undefined ? undefined : GEMINI_NAME.exec(model)?.[1];
}

/** True for Gemini model names (ADK decides by the name too). */
export function isGeminiModel(model: string | undefined): boolean {
  return geminiModelId(model) !== undefined;
}

/** True for Gemini 1.x names, which lack most native tools. */
export function isGemini1Model(model: string | undefined): boolean {
  return /^gemini-1(\.|-|$)/i.test(geminiModelId(model) ?? "");
}

/**
 * Throws the request-time error of a native tool sent to a model that cannot run it. `hint`
 * says what to use instead.
 */
export function requireGeminiModel(
  request: LlmRequest,
  toolLabel: string,
  hint: string,
  { allowGemini1 = false } = {},
): void {
  const model = request.model;
  if (!isGeminiModel(model)) {
    throw new ConfigurationError(
      `${toolLabel} is a Gemini built-in tool and the model "${model ?? "(none)"}" is not a Gemini model. ${hint}`,
    );
  }
  if (!allowGemini1 && isGemini1Model(model)) {
    throw new ConfigurationError(`${toolLabel} needs Gemini 2 or later; "${model}" is a Gemini 1 model. ${hint}`);
  }
}

/** Adds one native tool entry (e.g. `{ googleSearch: {} }`) to the request once. */
export function addNativeTool(request: LlmRequest, key: string, value: Record<string, unknown>): void {
  request.config.tools ??= [];
  if (request.config.tools.some((t) => t[key] !== undefined)) return;
  request.config.tools.push({ [key]: value });
}

/** True when the request already declares something besides the given native tool. */
export function hasOtherTools(request: LlmRequest, key: string): boolean {
  return (request.config.tools ?? []).some((t) => t[key] === undefined);
}
