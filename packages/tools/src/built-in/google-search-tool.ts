import { appendTools, BaseTool, isLlmAgent, type BaseLlm, type LlmRequest, type ToolContext } from "@agentkit/core";
import { GoogleSearchAgentTool } from "./google-search-agent-tool.js";
import { isGeminiModel, requireGeminiModel } from "./model-names.js";
import { addNativeGoogleSearch, GOOGLE_SEARCH_HINT } from "./native-google-search.js";

export interface GoogleSearchToolOptions {
  /**
   * Gemini 2.x rejects native search next to function tools. With this set, an agent that has
   * other tools gets search as a sub-agent tool (`GoogleSearchAgentTool` on the agent's model)
   * instead of the native declaration (ADK's `bypass_multi_tools_limit`).
   */
  bypassMultiToolsLimit?: boolean;
  /** A Gemini model that searches for agents whose own model is not Gemini (instead of a `ConfigurationError`). */
  fallbackModel?: BaseLlm | string;
}

/**
 * Grounds answers in Google Search, run by the model itself (Gemini's native
 * `{ googleSearch: {} }` tool; `googleSearchRetrieval` for Gemini 1, which allows no other
 * tool beside it). Any other model gets a `ConfigurationError` at request time, unless a
 * `fallbackModel` is set: the search then runs in a Gemini sub-agent called as a function.
 */
export class GoogleSearchTool extends BaseTool {
  readonly bypassMultiToolsLimit: boolean;
  readonly fallbackModel?: BaseLlm | string;
  private readonly agentTools = new Map<BaseLlm | string, GoogleSearchAgentTool>();

  constructor(options: GoogleSearchToolOptions = {}) {
    super({ name: "google_search", description: "Google Search, run by the model (Gemini built-in tool)." });
    this.bypassMultiToolsLimit = options.bypassMultiToolsLimit ?? false;
    this.fallbackModel = options.fallbackModel;
  }

  override async processLlmRequest({
    toolContext,
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    if (!isGeminiModel(llmRequest.model) && this.fallbackModel !== undefined) {
      appendTools(llmRequest, [this.agentToolFor(this.fallbackModel)]);
      return;
    }
    requireGeminiModel(llmRequest, "google_search", GOOGLE_SEARCH_HINT, { allowGemini1: true });
    const agent = toolContext.invocation.agent;
    if (this.bypassMultiToolsLimit && isLlmAgent(agent) && agent.tools.length > 1) {
      appendTools(llmRequest, [this.agentToolFor(agent.canonicalModel)]);
      return;
    }
    addNativeGoogleSearch(llmRequest);
  }

  /** One sub-agent tool per model, reused across requests. */
  private agentToolFor(model: BaseLlm | string): GoogleSearchAgentTool {
    let tool = this.agentTools.get(model);
    if (!tool) this.agentTools.set(model, (tool = new GoogleSearchAgentTool({ model })));
    return tool;
  }
}

/** The shared Google Search tool instance (no fallback, no bypass). */
export const googleSearchTool: GoogleSearchTool = new GoogleSearchTool();
