import type { FunctionDeclaration } from "../content/generate-content-config.js";
import { FunctionTool, type FunctionToolOptions, type ToolParameters } from "./function-tool.js";

/** ADK's note that keeps the model from calling a pending operation again. */
export const LONG_RUNNING_NOTE =
  "NOTE: This is a long-running operation. Do not call this tool again if it has already returned some intermediate " +
  "or pending status.";

/**
 * A function tool whose call returns before the work is done (e.g. a ticket awaiting
 * approval). Its first result (typically a pending status) is sent back; the final result
 * arrives later as a function response from the client under the same call id.
 */
export class LongRunningFunctionTool<P extends ToolParameters | undefined = undefined> extends FunctionTool<P> {
  constructor(options: Omit<FunctionToolOptions<P>, "isLongRunning">) {
    super({ ...options, isLongRunning: true });
  }

  override getDeclaration(): FunctionDeclaration {
    const declaration = super.getDeclaration();
    declaration.description = declaration.description
      ? `${declaration.description}\n\n${LONG_RUNNING_NOTE}`
      : LONG_RUNNING_NOTE;
    return declaration;
  }
}
