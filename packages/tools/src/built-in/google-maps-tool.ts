import { BaseTool, type LlmRequest, type ToolContext } from "@agentkit/core";
import { addNativeTool, requireGeminiModel } from "./model-names.js";

/** Grounds answers in Google Maps data, run by the model (Gemini 2+ native `{ googleMaps: {} }`). */
export class GoogleMapsTool extends BaseTool {
  constructor() {
    super({ name: "google_maps", description: "Google Maps grounding, run by the model (Gemini built-in tool)." });
  }

  override async processLlmRequest({
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    requireGeminiModel(
      llmRequest,
      "google_maps",
      "Use a Gemini 2 (or later) model, or a function tool calling a maps API.",
    );
    addNativeTool(llmRequest, "googleMaps", {});
  }
}

export const googleMapsTool: GoogleMapsTool = new GoogleMapsTool();
