import { FunctionTool, LlmAgent } from "@agentkit/core";
import { z } from "zod";
import { InstantModel } from "./instant-model.js";

/**
 * The agent every agentkit benchmark runs: one zod-typed FunctionTool and the instant model,
 * so one invocation is user message → tool call → tool response → answer (4 events, 2 model
 * calls). `adk-bench-agent.ts` builds the same agent with ADK.
 */
export function makeBenchAgent(options: { includeContents?: "default" | "none" } = {}): LlmAgent {
  const lookup = new FunctionTool({
    name: "lookup",
    description: "Looks something up.",
    parameters: z.object({ q: z.string() }),
    execute: async ({ q }) => ({ q, value: 42 }),
  });
  return new LlmAgent({
    name: "bench_agent",
    model: new InstantModel(),
    instruction: "Answer.",
    tools: [lookup],
    includeContents: options.includeContents ?? "default",
  });
}
