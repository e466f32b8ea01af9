import { describe, expect, it } from "@jest/globals";
import {
  AgentKitError,
  BasePlugin,
  ConfigurationError,
  createTextContent,
  PluginError,
  PluginManager,
  type Content,
  type InvocationContext,
} from "../src/index.js";

// Hooks under test ignore their argument; a cast keeps the tests free of a full invocation.
const invocationContext = {} as InvocationContext;

class RecordingPlugin extends BasePlugin {
  constructor(
    name: string,
    private readonly log: string[],
    private readonly answer: () => Content | undefined | null | Promise<Content | undefined>,
  ) {
    super(name);
  }

  override async beforeRunCallback(): Promise<Content | undefined> {
    this.log.push(this.name);
    return (await this.answer()) ?? undefined;
  }
}

class NullPlugin extends BasePlugin {
  constructor(private readonly log: string[]) {
    super("null_plugin");
  }
  override beforeRunCallback(): Content | undefined {
    this.log.push(this.name);
    return null as unknown as undefined;
  }
}

describe("PluginManager", () => {
  it("keeps registration order and looks plugins up by name", () => {
    const log: string[] = [];
    const a = new RecordingPlugin("a", log, () => undefined);
    const b = new RecordingPlugin("b", log, () => undefined);
    const manager = new PluginManager([a]);
    manager.registerPlugin(b);
    expect(manager.plugins.map((p) => p.name)).toEqual(["a", "b"]);
    expect(manager.getPlugin("b")).toBe(b);
    expect(manager.getPlugin("c")).toBeUndefined();
  });

  it("rejects duplicate plugin names", () => {
    const log: string[] = [];
    const manager = new PluginManager([new RecordingPlugin("dup", log, () => undefined)]);
    expect(() => manager.registerPlugin(new RecordingPlugin("dup", log, () => undefined))).toThrow(ConfigurationError);
    expect(() => new PluginManager([new NullPlugin(log), new NullPlugin(log)])).toThrow(/already registered/);
    expect(manager.plugins).toHaveLength(1);
  });

  it("runs hooks in order and stops at the first returned value", async () => {
    const log: string[] = [];
    const answer = createTextContent("from b");
    const manager = new PluginManager([
      new RecordingPlugin("a", log, () => undefined),
      new RecordingPlugin("b", log, async () => answer),
      new RecordingPlugin("c", log, () => createTextContent("from c")),
    ]);
    expect(await manager.run("beforeRunCallback", { invocationContext })).toBe(answer);
    expect(log).toEqual(["a", "b"]);
  });

  it("treats null and undefined as no answer", async () => {
    const log: string[] = [];
    const manager = new PluginManager([new NullPlugin(log), new RecordingPlugin("u", log, () => undefined)]);
    expect(await manager.run("beforeRunCallback", { invocationContext })).toBeUndefined();
    expect(log).toEqual(["null_plugin", "u"]);
  });

  it("returns undefined with no plugins and runs hooks a plugin does not override", async () => {
    expect(await new PluginManager().run("beforeRunCallback", { invocationContext })).toBeUndefined();
    const manager = new PluginManager([new RecordingPlugin("a", [], () => undefined)]);
    expect(await manager.run("afterRunCallback", { invocationContext })).toBeUndefined();
  });

  it("wraps a hook failure in PluginError naming plugin and hook, and stops there", async () => {
    const log: string[] = [];
    const cause = new Error("hook broke");
    const manager = new PluginManager([
      new RecordingPlugin("bad", log, () => {
        throw cause;
      }),
      new RecordingPlugin("after", log, () => undefined),
    ]);
    const error = await manager.run("beforeRunCallback", { invocationContext }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toBeInstanceOf(AgentKitError);
    const pluginError = error as PluginError;
    expect(pluginError.pluginName).toBe("bad");
    expect(pluginError.hook).toBe("beforeRunCallback");
    expect(pluginError.code).toBe("PLUGIN_ERROR");
    expect(pluginError.cause).toBe(cause);
    expect(pluginError.message).toContain("hook broke");
    expect(log).toEqual(["bad"]);
  });

  it("close closes every plugin even when one fails", async () => {
    const closed: string[] = [];
    class Closing extends BasePlugin {
      constructor(
        name: string,
        private readonly fail: boolean,
      ) {
        super(name);
      }
      override async close(): Promise<void> {
        closed.push(this.name);
        if (this.fail) throw new Error(`${this.name} close failed`);
      }
    }
    const manager = new PluginManager([new Closing("a", false), new Closing("b", true), new Closing("c", false)]);
    const error = await manager.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(closed).toEqual(["a", "b", "c"]);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as PluginError).pluginName).toBe("b");
    expect((error as PluginError).hook).toBe("close");

    closed.length = 0;
    const twoFail = new PluginManager([new Closing("x", true), new Closing("y", true)]);
    const aggregate = await twoFail.close().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(closed).toEqual(["x", "y"]);
    expect(aggregate).toBeInstanceOf(AggregateError);
    expect((aggregate as AggregateError).errors.map((e: PluginError) => e.pluginName)).toEqual(["x", "y"]);

    await expect(new PluginManager([new Closing("ok", false)]).close()).resolves.toBeUndefined();
  });
});
