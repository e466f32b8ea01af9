import { FunctionTool, LlmAgent } from "@google/adk";
import { z } from "zod";
import { AdkInstantModel } from "./adk-instant-model.js";

/** The bench agent (`bench-agent.ts`) built with Google's ADK: same tool, same model answers. */
export function makeAdkBenchAgent(options: { includeContents?: "default" | "none" } = {}): LlmAgent {
  const lookup = new FunctionTool({
    name: "lookup",
    description: "Looks something up.",
    parameters: z.object({ q: z.string() }),
    execute: async ({ q }) => ({ q, value: 42 }),
  });
  return new LlmAgent({
    name: "bench_agent",
    model: new AdkInstantModel(),
    instruction: "Answer.",
    tools: [lookup],
    includeContents: options.includeContents ?? "default",
  });
}
