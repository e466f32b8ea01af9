import {
  BaseCodeExecutor,
  ConfigurationError,
  type CodeExecutionInput,
  type CodeExecutorResult,
  type LlmRequest,
} from "@agentkit/core";
import { addNativeTool, requireGeminiModel } from "../built-in/model-names.js";

export interface BuiltInCodeExecutorOptions {
  /** Consecutive failures the model may retry (kept for symmetry; the model retries by itself). */
  errorRetryAttempts?: number;
}

/**
 * Code execution run by the model in Google's sandbox: adds Gemini's native
 * `{ codeExecution: {} }` tool to each request. The model's `executableCode` and
 * `codeExecutionResult` parts come back in its responses; nothing runs locally. Requires a
 * Gemini 2+ model (`ConfigurationError` at request time otherwise).
 */
export class BuiltInCodeExecutor extends BaseCodeExecutor {
  constructor(options: BuiltInCodeExecutorOptions = {}) {
    super({ errorRetryAttempts: options.errorRetryAttempts });
  }

  override get modelSide(): boolean {
    return true;
  }

  override processLlmRequest(request: LlmRequest): void {
    requireGeminiModel(
      request,
      "BuiltInCodeExecutor",
      "Use a Gemini 2 (or later) model, or LocalCodeExecutor to run the model's code here.",
    );
    addNativeTool(request, "codeExecution", {});
  }

  override async executeCode(_context: unknown, _input: CodeExecutionInput): Promise<CodeExecutorResult> {
    throw new ConfigurationError("BuiltInCodeExecutor runs code inside the model; it cannot execute code locally.");
  }
}
