import { appendInstructions, FunctionTool, type LlmRequest, type MemoryEntry, type ToolContext } from "@agentkit/core";
import { z } from "zod";

/** What `load_memory` returns to the model (the spec's `LoadMemoryResponse`). */
export interface LoadMemoryResponse {
  memories: MemoryEntry[];
}

const parameters = z.object({ query: z.string().describe("What to look up in memory.") });

/**
 * Lets the model search the user's long-term memory (the runner's memory service) with a
 * query of its own: `load_memory({ query })` returns `{ memories }`.
 */
export class LoadMemoryTool extends FunctionTool<typeof parameters> {
  constructor() {
    super({
      name: "load_memory",
      description: "Loads the memory for the current user.",
      parameters,
      execute: async ({ query }, toolContext): Promise<LoadMemoryResponse> => {
        const response = await toolContext.searchMemory(query);
        return { memories: response.memories };
      },
    });
  }

  override async processLlmRequest(args: { toolContext: ToolContext; llmRequest: LlmRequest }): Promise<void> {
    await super.processLlmRequest(args);
    appendInstructions(args.llmRequest, [
      "You have memory. You can use it to answer questions. If any questions need you to look up the memory, you should call load_memory function with a query.",
    ]);
  }
}

export const loadMemoryTool: LoadMemoryTool = new LoadMemoryTool();
