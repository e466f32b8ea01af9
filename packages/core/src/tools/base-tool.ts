import type { FunctionDeclaration } from "../content/generate-content-config.js";
import { appendTools, type LlmRequest } from "../models/llm-request.js";
import type { ToolContext } from "../context/tool-context.js";

export interface BaseToolOptions {
  name: string;
  description: string;
  /** The call returns before its work is done; the run pauses for a later function response. */
  isLongRunning?: boolean;
}

/** Arguments of `BaseTool.runAsync`. */
export interface ToolRunRequest {
  args: Record<string, unknown>;
  toolContext: ToolContext;
}

/**
 * A tool the model can call. Function-style tools describe themselves with
 * `getDeclaration()`; built-in model tools (search, code execution, ...) override
 * `processLlmRequest` to change the request instead.
 */
export abstract class BaseTool {
  readonly name: string;
  readonly description: string;
  readonly isLongRunning: boolean;

  constructor({ name, description, isLongRunning = false }: BaseToolOptions) {
    this.name = name;
    this.description = description;
    this.isLongRunning = isLongRunning;
  }

  /** The declaration sent to the model, or `undefined` for tools the model runs itself. */
  getDeclaration(): FunctionDeclaration | undefined {
    return undefined;
  }

  /** Executes the call. The result becomes the function response (wrapped as `{ result }` when not an object). */
  async runAsync(_request: ToolRunRequest): Promise<unknown> {
    throw new Error(`Tool ${this.name} cannot be run by agentkit (it is executed by the model).`);
  }

  /** Adds this tool to a model request (by default: its declaration). */
  async processLlmRequest({ llmRequest }: { toolContext: ToolContext; llmRequest: LlmRequest }): Promise<void> {
    appendTools(llmRequest, [this]);
  }
}
