import { deepCopy, frozenCopy } from "../content/deep-copy.js";
import type { FunctionDeclaration } from "../content/generate-content-config.js";
import { appendDeclaredTools, type LlmRequest } from "../models/llm-request.js";
import type { BaseTool } from "../tools/base-tool.js";
import { FunctionTool } from "../tools/function-tool.js";

/**
 * Tool declarations lent to requests instead of copied for each model call. `getDeclaration()`
 * hands every caller a copy it may edit; the flow called it for every tool of every request,
 * which copied the same schema again each time (1-2% of an invocation; more on a new server,
 * where the copy runs interpreted). A `FunctionTool` that keeps the default `getDeclaration`
 * declares what it was made with (its name, description and the schema derived once), so the
 * flow lends each such tool one frozen declaration, made on first use. Like lent contents, only
 * the flow and the models and plugins that declare `readsContentsOnly` see them: `ownRequest`
 * replaces them with copies before anyone else gets the request.
 */
interface SharedDeclaration {
  /** What the declaration was made from: a tool edited since (despite `readonly`) gets a new one. */
  name: string;
  description: string;
  declaration: FunctionDeclaration;
}

const sharedByTool = new WeakMap<BaseTool, SharedDeclaration>();
/** Every declaration lent (frozen), to find them in a request. */
const lentDeclarations = new WeakSet<FunctionDeclaration>();

/** `appendTools`, lending the shared declaration of each tool that has one. */
export function appendLentTools(request: LlmRequest, tools: readonly BaseTool[]): void {
  appendDeclaredTools(request, tools, lentDeclarationOf);
}

function lentDeclarationOf(tool: BaseTool): FunctionDeclaration | undefined {
  if (!(tool instanceof FunctionTool) || tool.getDeclaration !== FunctionTool.prototype.getDeclaration)
    return tool.getDeclaration();
  const shared = sharedByTool.get(tool);
  if (shared && shared.name === tool.name && shared.description === tool.description) return shared.declaration;
  const declaration = frozenCopy(tool.getDeclaration());
  sharedByTool.set(tool, { name: tool.name, description: tool.description, declaration });
  lentDeclarations.add(declaration);
  return declaration;
}

/**
 * Replaces the lent declarations of the request with copies of its own (what `getDeclaration()`
 * gives), in place: the `functionDeclarations` arrays are the request's own.
 */
export function ownDeclarations(request: LlmRequest): void {
  // A callback may have replaced the config (or its tools) with anything: only arrays are walked.
  const tools = request.config?.tools;
  if (!Array.isArray(tools)) return;
  for (const tool of tools) {
    const declarations = tool?.functionDeclarations;
    if (!Array.isArray(declarations)) continue;
    for (let i = 0; i < declarations.length; i++) {
      const declaration = declarations[i]!;
      if (lentDeclarations.has(declaration)) declarations[i] = deepCopy(declaration);
    }
  }
}
