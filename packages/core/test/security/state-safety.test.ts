import { describe, expect, it } from "@jest/globals";
import {
  BaseTool,
  ConfigurationError,
  createEvent,
  InMemoryRunner,
  InMemorySessionService,
  LlmAgent,
  State,
  type LlmRequest,
  type ToolContext,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

const fromJson = (text: string) => JSON.parse(text) as Record<string, unknown>;

/** An ordinary object: its prototype is some realm's Object.prototype (jest runs tests in a vm realm). */
function hasPlainPrototype(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto !== null && Object.getPrototypeOf(proto) === null && Object.hasOwn(proto, "hasOwnProperty");
}

describe("state is prototype-safe", () => {
  it("stores __proto__ and constructor as ordinary keys in every scope and never re-parents an object", async () => {
    const service = new InMemorySessionService();
    const session = await service.createSession({
      appName: "app",
      userId: "u",
      state: fromJson('{"__proto__": {"polluted": true}, "app:__proto__": 1, "user:constructor": 2}'),
    });
    expect(Object.keys(session.state).sort()).toEqual(["__proto__", "app:__proto__", "user:constructor"]);
    expect(hasPlainPrototype(session.state)).toBe(true);
    expect((session.state as { polluted?: unknown }).polluted).toBeUndefined();

    await service.appendEvent({
      session,
      event: createEvent({
        author: "user",
        actions: { stateDelta: fromJson('{"__proto__": {"x": 2}, "constructor": "c"}') },
      }),
    });
    const stored = await service.getSession({ appName: "app", userId: "u", sessionId: session.id });
    expect(Object.getOwnPropertyDescriptor(stored!.state, "__proto__")?.value).toEqual({ x: 2 });
    expect(stored!.state.constructor).toBe("c");
    expect(hasPlainPrototype(stored!.state)).toBe(true);
    expect(({} as { x?: unknown }).x).toBeUndefined();
    const other = await service.createSession({ appName: "app", userId: "u" });
    expect(Object.getOwnPropertyDescriptor(other.state, "app:__proto__")?.value).toBe(1);
    expect(other.state["user:constructor"]).toBe(2);
  });

  it("State reads own keys only", () => {
    const state = new State({});
    expect(state.get("constructor")).toBeUndefined();
    expect(state.has("toString")).toBe(false);
    expect(state.get("hasOwnProperty", "default")).toBe("default");
    state.set("__proto__", { a: 1 });
    expect(state.has("__proto__")).toBe(true);
    expect(state.get("__proto__")).toEqual({ a: 1 });
    expect(Object.keys(state.getDelta())).toEqual(["__proto__"]);
  });

  it("an instruction naming an inherited property fails as a missing key", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("hi")] });
    const agent = new LlmAgent({ name: "a", model, instruction: "Value: {constructor}." });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    const run = async () => {
      for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: "hi" })) {
        // drain
      }
    };
    await expect(run()).rejects.toThrow(ConfigurationError);
    await expect(run()).rejects.toThrow(/no key "constructor"/);

    const optional = new ScriptedModel({ steps: [ScriptedModel.text("hi")] });
    const agent2 = new LlmAgent({ name: "a", model: optional, instruction: "Value: [{constructor?}]." });
    const runner2 = new InMemoryRunner({ agent: agent2, appName: "app" });
    const s2 = await runner2.sessionService.createSession({ appName: "app", userId: "u" });
    for await (const _ of runner2.runAsync({ userId: "u", sessionId: s2.id, newMessage: "hi" })) {
      // drain
    }
    expect(optional.requests[0]!.config.systemInstruction).toContain("Value: [].");
  });
});

/** A tool that writes state while the request is built (as ADK's request processors may). */
class StampingTool extends BaseTool {
  constructor() {
    super({ name: "stamper", description: "stamps the request" });
  }
  override async processLlmRequest({
    toolContext,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    const n = toolContext.state.get<number>("stamps", 0);
    toolContext.state.set("stamps", n + 1);
    toolContext.state.set("user:last_stamp", `stamp-${n + 1}`);
  }
}

describe("state written while building a request is persisted", () => {
  it("the stored session has what the live session saw", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("one"), ScriptedModel.text("two")] });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "a", model, tools: [new StampingTool()] }),
      appName: "app",
    });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    for (const text of ["first", "second"]) {
      for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: text })) {
        // drain
      }
    }
    const stored = await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id });
    expect(stored!.state.stamps).toBe(2);
    expect(stored!.state["user:last_stamp"]).toBe("stamp-2");
    const model2 = stored!.events.filter((e) => e.author === "a");
    expect(model2.map((e) => e.actions.stateDelta)).toEqual([
      { stamps: 1, "user:last_stamp": "stamp-1" },
      { stamps: 2, "user:last_stamp": "stamp-2" },
    ]);
  });

  it("keeps the write when the model answers with nothing to show", async () => {
    const model = new ScriptedModel({ steps: [{ usageMetadata: { totalTokenCount: 3 } }] });
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "a", model, tools: [new StampingTool()] }),
      appName: "app",
    });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: "x" })) {
      // drain
    }
    const stored = await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id });
    expect(stored!.state.stamps).toBe(1);
  });
});
