import { FunctionTool } from "@agentkit/core";
import { z } from "zod";

/** Referenced from root_agent.yaml as `./tools.ts#rollDie`. */
export const rollDie = new FunctionTool({
  name: "roll_die",
  description: "Rolls a die with the given number of sides and returns the result.",
  parameters: z.object({ sides: z.number().int().min(2).max(1000).default(6) }),
  execute: async ({ sides }) => ({ sides, result: 1 + Math.floor(Math.random() * sides) }),
});
