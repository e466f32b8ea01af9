import { describe, expect, it } from "@jest/globals";
import {
  AgentKitError,
  BaseAgent,
  CallbackContext,
  ConfigurationError,
  createEvent,
  createEventActions,
  createUserContent,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  InvocationContext,
  PluginManager,
  ReadonlyContext,
  type State,
  ToolContext,
  type Event,
} from "../src/index.js";

class StubAgent extends BaseAgent {
  protected override async *runAsyncImpl(): AsyncGenerator<Event, void, void> {}
}

async function invocation(
  services: { artifacts?: boolean; memory?: InMemoryMemoryService } = {},
): Promise<InvocationContext> {
  const sessionService = new InMemorySessionService();
  const session = await sessionService.createSession({
    appName: "app",
    userId: "ada",
    sessionId: "s-1",
    state: { topic: "ai", "user:lang": "en" },
  });
  return new InvocationContext({
    invocationId: "e-7",
    agent: new StubAgent({ name: "helper" }),
    session,
    sessionService,
    artifactService: services.artifacts ? new InMemoryArtifactService() : undefined,
    memoryService: services.memory,
    pluginManager: new PluginManager(),
    userContent: createUserContent("hello"),
    branch: "root.helper",
  });
}

describe("ReadonlyContext", () => {
  it("exposes the invocation's identity and a read-only view of the state", async () => {
    const ctx = new ReadonlyContext(await invocation());
    expect([ctx.invocationId, ctx.agentName, ctx.appName, ctx.userId, ctx.branch]).toEqual([
      "e-7",
      "helper",
      "app",
      "ada",
      "root.helper",
    ]);
    expect(ctx.userContent).toEqual(createUserContent("hello"));
    expect(ctx.session.id).toBe("s-1");
    expect(ctx.state.get("topic")).toBe("ai");
    expect(ctx.state.toRecord()).toEqual({ topic: "ai", "user:lang": "en" });
    // Even when cast to a writable State, a read-only context has no way to write.
    expect(() => (ctx.state as State).set("topic", "changed")).toThrow(TypeError);
    expect(ctx.state.get("topic")).toBe("ai");
    expect(ctx.session.state.topic).toBe("ai");
    // `toRecord` is a copy: changing it changes nothing.
    ctx.state.toRecord().topic = "changed";
    expect(ctx.session.state.topic).toBe("ai");
  });

  it("reads the session's state through, without copying it on each access (as ADK's read-only mapping)", async () => {
    const invocationContext = await invocation();
    let listings = 0;
    invocationContext.session.state = new Proxy(invocationContext.session.state, {
      ownKeys(target) {
        listings++;
        return Reflect.ownKeys(target);
      },
    });
    const ctx = new ReadonlyContext(invocationContext);
    for (let i = 0; i < 100; i++) expect(ctx.state.get("topic")).toBe("ai");
    expect(ctx.state.has("user:lang")).toBe(true);
    expect(ctx.state.has("constructor")).toBe(false);
    expect(listings).toBe(0);
    invocationContext.session.state.topic = "ml";
    expect(ctx.state.get("topic")).toBe("ml");
  });
});

describe("CallbackContext", () => {
  it("records state writes in actions.stateDelta and shows them on read", async () => {
    const inv = await invocation();
    const ctx = new CallbackContext(inv);
    ctx.state.set("topic", "agents");
    ctx.state.set("temp:scratch", 1);
    ctx.state.set("app:theme", "dark");
    expect(ctx.actions.stateDelta).toEqual({ topic: "agents", "temp:scratch": 1, "app:theme": "dark" });
    expect(ctx.eventActions).toBe(ctx.actions);
    expect(ctx.state.get("topic")).toBe("agents");
    expect(ctx.state.get("user:lang")).toBe("en");
    expect(ctx.state.has("app:theme")).toBe(true);
    // Later contexts of the same invocation see the write before the event is appended.
    expect(new CallbackContext(inv).state.get("topic")).toBe("agents");
    expect(new CallbackContext(inv).actions.stateDelta).toEqual({});
  });

  it("writes into the actions it is given", async () => {
    const actions = createEventActions({ stateDelta: { before: 1 } });
    const ctx = new CallbackContext(await invocation(), actions);
    ctx.state.set("after", 2);
    expect(ctx.actions).toBe(actions);
    expect(actions.stateDelta).toEqual({ before: 1, after: 2 });
    expect(ctx.state.get("before")).toBe(1);
  });

  it("saves artifacts with increasing versions recorded in artifactDelta, and loads and lists them", async () => {
    const ctx = new CallbackContext(await invocation({ artifacts: true }));
    expect(await ctx.saveArtifact("report.txt", { text: "v0" })).toBe(0);
    expect(await ctx.saveArtifact("report.txt", { text: "v1" })).toBe(1);
    expect(
      await ctx.saveArtifact("user:avatar.png", { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }),
    ).toBe(0);
    expect(ctx.actions.artifactDelta).toEqual({ "report.txt": 1, "user:avatar.png": 0 });
    expect(await ctx.loadArtifact("report.txt")).toEqual({ text: "v1" });
    expect(await ctx.loadArtifact("report.txt", 0)).toEqual({ text: "v0" });
    expect(await ctx.loadArtifact("missing.txt")).toBeUndefined();
    expect(await ctx.listArtifacts()).toEqual(["report.txt", "user:avatar.png"]);
  });

  it("searches the user's memory", async () => {
    const memory = new InMemoryMemoryService();
    await memory.addSessionToMemory({
      id: "old",
      appName: "app",
      userId: "ada",
      state: {},
      lastUpdateTime: 1,
      events: [
        createEvent({ author: "user", timestamp: 1, content: createUserContent("my favourite colour is teal") }),
      ],
    });
    const ctx = new CallbackContext(await invocation({ memory }));
    const result = await ctx.searchMemory("favourite colour");
    expect(result.memories.map((m) => m.content.parts?.[0]?.text)).toEqual(["my favourite colour is teal"]);
  });

  it("throws ConfigurationError naming the missing service", async () => {
    const ctx = new CallbackContext(await invocation());
    await expect(ctx.saveArtifact("a.txt", { text: "x" })).rejects.toThrow(ConfigurationError);
    await expect(ctx.loadArtifact("a.txt")).rejects.toThrow(/artifactService/);
    await expect(ctx.listArtifacts()).rejects.toThrow(/No artifact service/);
    await expect(ctx.searchMemory("q")).rejects.toThrow(/memoryService/);
    expect(ctx.actions.artifactDelta).toEqual({});
  });
});

describe("ToolContext", () => {
  it("is a callback context that knows its call and the user's confirmation", async () => {
    const ctx = new ToolContext(await invocation(), {
      functionCallId: "call-9",
      toolConfirmation: { confirmed: true, payload: { limit: 5 } },
    });
    expect(ctx).toBeInstanceOf(CallbackContext);
    expect(ctx.functionCallId).toBe("call-9");
    expect(ctx.toolConfirmation).toEqual({ confirmed: true, payload: { limit: 5 } });
    ctx.state.set("k", "v");
    expect(ctx.actions.stateDelta).toEqual({ k: "v" });
  });

  it("requestConfirmation records an unconfirmed request under the call id", async () => {
    const ctx = new ToolContext(await invocation(), { functionCallId: "call-9" });
    ctx.requestConfirmation({ hint: "Approve?", payload: { amount: 10 } });
    expect(ctx.actions.requestedToolConfirmations).toEqual({
      "call-9": { hint: "Approve?", confirmed: false, payload: { amount: 10 } },
    });
    const bare = new ToolContext(await invocation(), { functionCallId: "call-10" });
    bare.requestConfirmation();
    expect(bare.actions.requestedToolConfirmations).toEqual({ "call-10": { confirmed: false } });
  });

  it("requestConfirmation needs a function call id", async () => {
    const ctx = new ToolContext(await invocation());
    let error: unknown;
    try {
      ctx.requestConfirmation({ hint: "x" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AgentKitError);
    expect((error as AgentKitError).code).toBe("CONFIRMATION_UNAVAILABLE");
    expect(ctx.actions.requestedToolConfirmations).toEqual({});
  });
});
