import { BaseTool, type FunctionDeclaration, type ToolContext, type ToolRunRequest } from "@agentkit/core";
import { validateToolName } from "@agentkit/core/internal";

export interface BaseRetrievalToolOptions {
  name: string;
  description: string;
}

/**
 * A tool that answers a natural-language `query` with retrieved passages. Subclasses implement
 * `retrieve`; the model sees `{ query: string }` as the only argument.
 */
export abstract class BaseRetrievalTool extends BaseTool {
  constructor({ name, description }: BaseRetrievalToolOptions) {
    validateToolName(name);
    super({ name, description });
  }

  override getDeclaration(): FunctionDeclaration | undefined {
    return {
      name: this.name,
      description: this.description,
      parametersJsonSchema: {
        type: "object",
        properties: { query: { type: "string", description: "The query to retrieve passages for." } },
        required: ["query"],
      },
    };
  }

  override async runAsync({ args, toolContext }: ToolRunRequest): Promise<unknown> {
    const query = args?.query;
    if (typeof query !== "string" || query.trim() === "")
      return { error: `Tool ${this.name} needs a non-empty string argument "query".` };
    return this.retrieve(query, toolContext);
  }

  /** Returns what the model gets back for `query` (an object, or a value wrapped as `{ result }`). */
  abstract retrieve(query: string, toolContext?: ToolContext): Promise<unknown>;
}
