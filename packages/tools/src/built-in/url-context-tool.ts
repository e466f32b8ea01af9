import { BaseTool, type LlmRequest, type ToolContext } from "@agentkit/core";
import { addNativeTool, requireGeminiModel } from "./model-names.js";

/** Lets the model read the URLs named in the conversation (Gemini 2+ native `{ urlContext: {} }`). */
export class UrlContextTool extends BaseTool {
  constructor() {
    super({
      name: "url_context",
      description: "Reads URLs from the conversation, run by the model (Gemini built-in tool).",
    });
  }

  override async processLlmRequest({
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    requireGeminiModel(
      llmRequest,
      "url_context",
      "Use a Gemini 2 (or later) model, or a function tool that fetches pages.",
    );
    addNativeTool(llmRequest, "urlContext", {});
  }
}

export const urlContextTool: UrlContextTool = new UrlContextTool();
