// A run stores its events through `appendEventNow` (no promise when the store answers at once),
// unless the session service overrides `appendEvent`: an override (a wrapper that logs, counts or
// delays appends) must still see every event a run stores, in order.
import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  Runner,
  type AppendEventRequest,
  type Event,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

function agent(): LlmAgent {
  const lookup = new FunctionTool({
    name: "lookup",
    description: "Looks it up.",
    parameters: z.object({ q: z.string() }),
    execute: ({ q }) => ({ q, value: 42 }),
  });
  const model = new ScriptedModel({
    steps: [ScriptedModel.functionCall("lookup", { q: "x" }), ScriptedModel.text("42")],
  });
  return new LlmAgent({ name: "a", model, tools: [lookup] });
}

class CountingSessionService extends InMemorySessionService {
  readonly appended: string[] = [];
  override async appendEvent(request: AppendEventRequest): Promise<Event> {
    // Resolved a turn later, as a wrapper around a remote store would.
    await Promise.resolve();
    this.appended.push(request.event.author ?? "?");
    return super.appendEvent(request);
  }
}

async function run(sessionService: InMemorySessionService): Promise<{ yielded: Event[]; stored: Event[] }> {
  const runner = new Runner({ appName: "app", agent: agent(), sessionService });
  const session = await sessionService.createSession({ appName: "app", userId: "u" });
  const yielded: Event[] = [];
  for await (const event of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: "q" }))
    yielded.push(event);
  const stored = (await sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id }))!.events;
  await runner.close();
  return { yielded, stored };
}

describe("a run's appends", () => {
  it("go through an overridden appendEvent, every one of them, in order", async () => {
    const service = new CountingSessionService();
    const { yielded, stored } = await run(service);
    expect(service.appended).toEqual(["user", "a", "a", "a"]);
    expect(stored.map((e) => e.id)).toEqual([stored[0]!.id, ...yielded.map((e) => e.id)]);
  });

  it("store the same events without an override, each before the next is made", async () => {
    const service = new InMemorySessionService();
    const { yielded, stored } = await run(service);
    expect(yielded.map((e) => e.author)).toEqual(["a", "a", "a"]);
    expect(stored.map((e) => e.author)).toEqual(["user", "a", "a", "a"]);
    expect(stored.slice(1).map((e) => e.id)).toEqual(yielded.map((e) => e.id));
    // The tool's response was in the second request: stored before the model was called again.
    expect(stored[2]!.content?.parts?.[0]?.functionResponse?.response).toEqual({ q: "x", value: 42 });
    expect(yielded[2]!.content?.parts?.[0]?.text).toBe("42");
  });
});
