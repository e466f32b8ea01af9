import { FunctionTool, LlmAgent, type BaseLlm } from "@agentkit/core";
import { z } from "zod";
import { pickModel } from "../_shared/pick-model.js";

const getCurrentTime = new FunctionTool({
  name: "get_current_time",
  description: "Returns the current time in an IANA time zone.",
  parameters: z.object({
    timezone: z.string().describe("IANA time zone, e.g. Europe/Paris").default("UTC"),
  }),
  execute: async ({ timezone }) => {
    try {
      const time = new Intl.DateTimeFormat("en-GB", { timeZone: timezone, timeStyle: "medium" }).format(new Date());
      return { timezone, time };
    } catch {
      return { error: `Unknown time zone "${timezone}"` };
    }
  },
});

const rollDie = new FunctionTool({
  name: "roll_die",
  description: "Rolls a die with the given number of sides and returns the result.",
  parameters: z.object({ sides: z.number().int().min(2).max(1000).default(6) }),
  execute: async ({ sides }, toolContext) => {
    const result = 1 + Math.floor(Math.random() * sides);
    const rolls = toolContext.state.get<number[]>("rolls", []);
    toolContext.state.set("rolls", [...rolls, result]);
    return { sides, result };
  },
});

/** A small assistant with two tools, on the given model. */
export function createAssistant(model: BaseLlm | string): LlmAgent {
  return new LlmAgent({
    name: "assistant",
    description: "Tells the time anywhere and rolls dice.",
    model,
    instruction: "You are a helpful assistant. Use get_current_time for time questions and roll_die for dice.",
    tools: [getCurrentTime, rollDie],
  });
}

/**
 * Runs on a real model when GOOGLE_API_KEY or GEMINI_API_KEY (Gemini), OPENAI_API_KEY,
 * ANTHROPIC_API_KEY or OLLAMA_HOST is set, else offline on the demo model.
 */
export const rootAgent = createAssistant(pickModel());
