import { describe, expect, it } from "@jest/globals";
import {
  getFunctionCalls,
  getFunctionResponses,
  getTextOf,
  InMemoryRunner,
  isFinalResponse,
  type Event,
} from "@agentkit/core";
import { createAssistant } from "../assistant/agent.js";
import { DemoModel } from "../_shared/demo-model.js";
import { pickModel } from "../_shared/pick-model.js";

const rootAgent = createAssistant(new DemoModel());

async function ask(runner: InMemoryRunner, sessionId: string, text: string): Promise<Event[]> {
  const events: Event[] = [];
  for await (const e of runner.runAsync({ userId: "u", sessionId, newMessage: { role: "user", parts: [{ text }] } }))
    events.push(e);
  return events;
}

describe("assistant example", () => {
  it("answers a time question through its tool", async () => {
    const runner = new InMemoryRunner({ agent: rootAgent, appName: "assistant" });
    const session = await runner.sessionService.createSession({ appName: "assistant", userId: "u" });
    const events = await ask(runner, session.id, "What time is it in Europe/Paris?");
    expect(getFunctionCalls(events[0]!)).toEqual([
      expect.objectContaining({ name: "get_current_time", args: { timezone: "Europe/Paris" } }),
    ]);
    expect(getFunctionResponses(events[1]!)[0]?.response).toEqual({
      timezone: "Europe/Paris",
      time: expect.stringMatching(/^\d\d:\d\d:\d\d$/),
    });
    const last = events[events.length - 1]!;
    expect(isFinalResponse(last)).toBe(true);
    expect(getTextOf(last.content)).toMatch(/^It is \d\d:\d\d:\d\d in Europe\/Paris\. \(demo model\)$/);
    await runner.close();
  });

  it("keeps dice rolls in session state across turns", async () => {
    const runner = new InMemoryRunner({ agent: rootAgent, appName: "assistant" });
    const session = await runner.sessionService.createSession({ appName: "assistant", userId: "u" });
    await ask(runner, session.id, "roll a 20-sided die");
    await ask(runner, session.id, "roll again a d20");
    const stored = await runner.sessionService.getSession({ appName: "assistant", userId: "u", sessionId: session.id });
    const rolls = stored?.state.rolls as number[];
    expect(rolls).toHaveLength(2);
    for (const r of rolls) {
      expect(r).toBeGreaterThanOrEqual(1);
      expect(r).toBeLessThanOrEqual(20);
    }
    await runner.close();
  });
});

describe("pickModel", () => {
  it("names a real model when credentials are set, else falls back to the demo model", () => {
    expect(pickModel({ GEMINI_API_KEY: "k", OPENAI_API_KEY: "k" })).toBe("gemini-2.5-flash");
    expect(pickModel({ GOOGLE_API_KEY: "k" })).toBe("gemini-2.5-flash");
    expect(pickModel({ OPENAI_API_KEY: "k" })).toBe("gpt-4o-mini");
    expect(pickModel({ ANTHROPIC_API_KEY: "k" })).toBe("claude-sonnet-4-5");
    expect(pickModel({ OLLAMA_HOST: "127.0.0.1:11434" })).toBe("ollama/llama3.2");
    expect(pickModel({ AGENTKIT_EXAMPLE_MODEL: "openai/gpt-4.1", OPENAI_API_KEY: "k" })).toBe("openai/gpt-4.1");
    expect(pickModel({})).toBeInstanceOf(DemoModel);
  });
});
