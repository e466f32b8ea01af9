import { FunctionTool } from "./function-tool.js";

/**
 * Ends the enclosing `LoopAgent`: escalates (the loop stops after this agent's turn) and
 * skips summarizing the call with the model. Give it to an agent inside a loop.
 */
export const exitLoopTool: FunctionTool = new FunctionTool({
  name: "exit_loop",
  description: "Exits the loop. Call this function only when you are instructed to do so.",
  execute: (_args, toolContext) => {
    toolContext.actions.escalate = true;
    toolContext.actions.skipSummarization = true;
    return {};
  },
});
