import { describe, expect, it } from "@jest/globals";
import {
  BaseAgent,
  BasePlugin,
  ConfigurationError,
  createEvent,
  createTextContent,
  getTextOf,
  InMemorySessionService,
  InvocationContext,
  PluginManager,
  type BaseAgentOptions,
  type CallbackContext,
  type Content,
  type Event,
} from "../src/index.js";
import { validateAgentName } from "../src/internal.js";

class EchoAgent extends BaseAgent {
  runs = 0;
  constructor(options: BaseAgentOptions) {
    super(options);
  }
  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    this.runs += 1;
    yield createEvent({
      invocationId: ctx.invocationId,
      author: this.name,
      content: createTextContent(`hi from ${this.name}`, "model"),
    });
  }
}

describe("agent names", () => {
  it("accepts identifier-like names", () => {
    for (const name of ["a", "_private", "Agent_2", "x".repeat(100)])
      expect(() => validateAgentName(name)).not.toThrow();
  });

  it("rejects other names with ConfigurationError", () => {
    for (const name of ["", "2fast", "my-agent", "has space", "dotted.name", 42, undefined]) {
      expect(() => validateAgentName(name)).toThrow(ConfigurationError);
    }
    expect(() => new EchoAgent({ name: "bad-name" })).toThrow(/Invalid agent name "bad-name"/);
  });

  it("reserves the name user", () => {
    expect(() => new EchoAgent({ name: "user" })).toThrow(/reserved for the end user/);
    expect(() => new EchoAgent({ name: "user_helper" })).not.toThrow();
  });
});

describe("agent tree", () => {
  it("links sub-agents to their parent and finds agents by name", () => {
    const leaf = new EchoAgent({ name: "leaf" });
    const middle = new EchoAgent({ name: "middle", subAgents: [leaf] });
    const sibling = new EchoAgent({ name: "sibling" });
    const root = new EchoAgent({ name: "root", description: "the root", subAgents: [middle, sibling] });
    expect(root.description).toBe("the root");
    expect(leaf.description).toBe("");
    expect(root.subAgents).toEqual([middle, sibling]);
    expect(leaf.parentAgent).toBe(middle);
    expect(middle.parentAgent).toBe(root);
    expect(root.parentAgent).toBeUndefined();
    expect(leaf.rootAgent).toBe(root);
    expect(root.rootAgent).toBe(root);
    expect(root.findAgent("root")).toBe(root);
    expect(root.findAgent("leaf")).toBe(leaf);
    expect(root.findSubAgent("root")).toBeUndefined();
    expect(root.findSubAgent("sibling")).toBe(sibling);
    expect(middle.findAgent("sibling")).toBeUndefined();
    expect(root.findAgent("nobody")).toBeUndefined();
  });

  it("rejects an agent that already has a parent", () => {
    const shared = new EchoAgent({ name: "shared" });
    new EchoAgent({ name: "first", subAgents: [shared] });
    expect(() => new EchoAgent({ name: "second", subAgents: [shared] })).toThrow(ConfigurationError);
    expect(() => new EchoAgent({ name: "third", subAgents: [shared] })).toThrow(/already has parent "first"/);
    expect(shared.parentAgent?.name).toBe("first");
  });

  it("rejects two sub-agents with the same name", () => {
    expect(
      () => new EchoAgent({ name: "p", subAgents: [new EchoAgent({ name: "twin" }), new EchoAgent({ name: "twin" })] }),
    ).toThrow(/two sub-agents named "twin"/);
  });
});

describe("BaseAgent.runAsync", () => {
  async function invocation(agent: BaseAgent, plugins: BasePlugin[] = []): Promise<InvocationContext> {
    const sessionService = new InMemorySessionService();
    const session = await sessionService.createSession({ appName: "app", userId: "u" });
    return new InvocationContext({
      invocationId: "e-1",
      agent,
      session,
      sessionService,
      pluginManager: new PluginManager(plugins),
    });
  }
  async function run(agent: BaseAgent, ctx: InvocationContext): Promise<Event[]> {
    const events: Event[] = [];
    for await (const e of agent.runAsync(ctx)) events.push(e);
    return events;
  }

  it("runs the implementation between the callbacks", async () => {
    const calls: string[] = [];
    const agent = new EchoAgent({
      name: "echo",
      beforeAgentCallback: () => void calls.push("before"),
      afterAgentCallback: [
        ({ context }: { context: CallbackContext }) => void calls.push(`after ${context.agentName}`),
      ],
    });
    const events = await run(agent, await invocation(agent));
    expect(events.map((e) => getTextOf(e.content))).toEqual(["hi from echo"]);
    expect(calls).toEqual(["before", "after echo"]);
  });

  it("a before callback's content answers instead of the agent", async () => {
    const agent = new EchoAgent({ name: "echo", beforeAgentCallback: () => createTextContent("blocked", "model") });
    const ctx = await invocation(agent);
    const events = await run(agent, ctx);
    expect(events).toHaveLength(1);
    expect(events[0]!.author).toBe("echo");
    expect(getTextOf(events[0]!.content)).toBe("blocked");
    expect(agent.runs).toBe(0);
  });

  it("records callback state writes in an event, and an after callback's content follows the agent's events", async () => {
    const agent = new EchoAgent({
      name: "echo",
      beforeAgentCallback: ({ context }) => void context.state.set("seen", true),
      afterAgentCallback: () => createTextContent("bye", "model"),
    });
    const events = await run(agent, await invocation(agent));
    expect(events.map((e) => [e.actions.stateDelta, getTextOf(e.content)])).toEqual([
      [{ seen: true }, ""],
      [{}, "hi from echo"],
      [{}, "bye"],
    ]);
  });

  it("plugins run before the agent's own callbacks and can answer for it", async () => {
    class Gate extends BasePlugin {
      constructor() {
        super("gate");
      }
      override beforeAgentCallback(): Content {
        return createTextContent("plugin says no", "model");
      }
    }
    let ownCallback = false;
    const agent = new EchoAgent({ name: "echo", beforeAgentCallback: () => void (ownCallback = true) });
    const events = await run(agent, await invocation(agent, [new Gate()]));
    expect(events.map((e) => getTextOf(e.content))).toEqual(["plugin says no"]);
    expect(ownCallback).toBe(false);
    expect(agent.runs).toBe(0);
  });

  it("without agent callbacks hands out the agent's own run, with no layer forwarding its events", async () => {
    let made: AsyncGenerator<Event, void, void> | undefined;
    class Own extends EchoAgent {
      protected override runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
        made = super.runAsyncImpl(ctx);
        return made;
      }
    }
    const agent = new Own({ name: "own" });
    const ctx = await invocation(agent);
    const run = agent.runAsync(ctx);
    expect(run).toBe(made);
    const events: Event[] = [];
    for await (const e of run) events.push(e);
    expect(events.map((e) => getTextOf(e.content))).toEqual(["hi from own"]);
    // A plugin with an agent callback puts the callbacks' layer back.
    class Observer extends BasePlugin {
      constructor() {
        super("observer");
      }
      override afterAgentCallback(): undefined {
        return undefined;
      }
    }
    const observed = new Own({ name: "observed" });
    const wrapped = observed.runAsync(await invocation(observed, [new Observer()]));
    expect(wrapped).not.toBe(made);
    expect((await wrapped.next()).value).toMatchObject({ author: "observed" });
    expect(made).toBeDefined();
  });

  it("yields nothing once the invocation has ended, with or without callbacks", async () => {
    for (const options of [{}, { afterAgentCallback: () => createTextContent("late", "model") }]) {
      const agent = new EchoAgent({ name: "echo", ...options });
      const ctx = await invocation(agent);
      ctx.end();
      expect(await run(agent, ctx)).toEqual([]);
      expect(agent.runs).toBe(0);
    }
  });
});
