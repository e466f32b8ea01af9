import { BaseTool, ConfigurationError, type LlmRequest, type ToolContext } from "@agentkit/core";
import { addNativeTool, hasOtherTools, isGemini1Model, requireGeminiModel } from "./model-names.js";

export const GOOGLE_SEARCH_HINT =
  "Use a Gemini model, give GoogleSearchTool a Gemini `fallbackModel`, or add a GoogleSearchAgentTool (a Gemini " +
  "sub-agent with search that any model can call as a function).";

/**
 * Adds Gemini's native search to a request: `{ googleSearch: {} }`, or `googleSearchRetrieval`
 * for Gemini 1 (which allows no other tool beside it). Other models get a `ConfigurationError`.
 */
export function addNativeGoogleSearch(llmRequest: LlmRequest): void {
  requireGeminiModel(llmRequest, "google_search", GOOGLE_SEARCH_HINT, { allowGemini1: true });
  if (isGemini1Model(llmRequest.model)) {
    if (hasOtherTools(llmRequest, "googleSearchRetrieval")) {
      throw new ConfigurationError(
        `google_search cannot be combined with other tools on the Gemini 1 model ` +
          `"${llmRequest.model}". ${GOOGLE_SEARCH_HINT}`,
      );
    }
    addNativeTool(llmRequest, "googleSearchRetrieval", {});
    return;
  }
  addNativeTool(llmRequest, "googleSearch", {});
}

/** Native search only, no fallback: what the search sub-agent of `GoogleSearchAgentTool` uses. */
export class NativeGoogleSearchTool extends BaseTool {
  constructor() {
    super({ name: "google_search", description: "Google Search, run by the model (Gemini built-in tool)." });
  }

  override async processLlmRequest({
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    addNativeGoogleSearch(llmRequest);
  }
}
