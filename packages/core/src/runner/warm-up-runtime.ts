import { z } from "zod";
import { LlmAgent } from "../agents/llm-agent.js";
import { eventToJsonText } from "../events/event-json.js";
import { BaseLlm } from "../models/base-llm.js";
import type { LlmRequest } from "../models/llm-request.js";
import type { LlmResponse } from "../models/llm-response.js";
import { FunctionTool } from "../tools/function-tool.js";
import { InMemoryRunner } from "./in-memory-runner.js";

/** Calls the tool once, then answers with text: the path most turns take. */
class WarmUpModel extends BaseLlm {
  constructor() {
    super({ model: "agentkit-warm-up" });
  }

  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    const last = request.contents.at(-1);
    if (last?.parts?.some((p) => p.functionResponse)) {
      yield { content: { role: "model", parts: [{ text: "done" }] } };
      return;
    }
    yield {
      content: { role: "model", parts: [{ functionCall: { id: "warm-up-call", name: "echo", args: { text: "hi" } } }] },
    };
  }
}

/**
 * The private agent of the warm-ups: a model of its own that calls an `echo` tool once, then
 * answers with text (the path most turns take). No user code, no provider, nothing outside the
 * process; each call makes a new agent, so nothing is shared with a caller.
 */
export function createWarmUpAgent(): LlmAgent {
  const echo = new FunctionTool({
    name: "echo",
    description: "Echoes its text.",
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => ({ text }),
  });
  return new LlmAgent({ name: "warm_up", model: new WarmUpModel(), instruction: "Warm up.", tools: [echo] });
}

/**
 * Runs a few turns of a private agent (its own model and tool, in-memory services: no user code,
 * no provider, nothing stored) so the runner, the LLM flow, function calling and event
 * serialization are compiled before a server's first request instead of during it. Returns the
 * number of events produced (for a check that it really ran).
 */
export async function warmUpRuntime(turns = 3): Promise<number> {
  const runner = new InMemoryRunner({ appName: "agentkit-warm-up", agent: createWarmUpAgent() });
  let events = 0;
  try {
    for (let turn = 0; turn < turns; turn += 1) {
      for await (const event of runner.runAsync({
        userId: "warm-up",
        sessionId: "warm-up",
        newMessage: `turn ${turn}`,
        runConfig: { autoCreateSession: true },
      })) {
        eventToJsonText(event);
        events += 1;
      }
    }
  } finally {
    await runner.close();
  }
  return events;
}
