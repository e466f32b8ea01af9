import { BaseTool, type LlmRequest, type ToolContext } from "@agentkit/core";
import { addNativeTool, requireGeminiModel } from "./model-names.js";

/**
 * Lets the model write and run Python in Google's sandbox (Gemini 2+ native
 * `{ codeExecution: {} }`). Same effect as `codeExecutor: new BuiltInCodeExecutor()` on the
 * agent, but usable wherever a tool is expected (e.g. a YAML `tools` list).
 */
export class BuiltInCodeExecutionTool extends BaseTool {
  constructor() {
    super({ name: "built_in_code_execution", description: "Code execution run by the model (Gemini built-in tool)." });
  }

  override async processLlmRequest({
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    requireGeminiModel(
      llmRequest,
      "built_in_code_execution",
      "Use a Gemini 2 (or later) model, or give the agent `codeExecutor: new LocalCodeExecutor()`.",
    );
    addNativeTool(llmRequest, "codeExecution", {});
  }
}

export const builtInCodeExecutionTool: BuiltInCodeExecutionTool = new BuiltInCodeExecutionTool();
