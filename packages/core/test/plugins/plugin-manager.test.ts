import { describe, expect, it } from "@jest/globals";
import { BasePlugin, PluginError, PluginManager } from "../../src/index.js";
import type { Event } from "../../src/index.js";

/** A plugin that keeps every hook of BasePlugin's. */
class Quiet extends BasePlugin {}

class OnEventOnly extends BasePlugin {
  readonly seen: string[] = [];
  override async onEventCallback({ event }: { event: Event }): Promise<Event | undefined> {
    this.seen.push(event.id);
    return undefined;
  }
}

describe("PluginManager hooks", () => {
  it("knows which hooks some plugin overrides; BasePlugin's own hooks count as none", () => {
    const manager = new PluginManager([new OnEventOnly("a"), new Quiet("b")]);
    expect(manager.hasHook("onEventCallback")).toBe(true);
    expect(manager.hasHook("beforeModelCallback")).toBe(false);
    expect(new PluginManager().hasHook("onEventCallback")).toBe(false);
  });

  it("runs the overriding plugins in order and returns the first value; nothing to run answers undefined", async () => {
    const first = new OnEventOnly("first");
    const answering = new (class extends BasePlugin {
      override async onEventCallback({ event }: { event: Event }): Promise<Event | undefined> {
        return { ...event, id: "replaced" };
      }
    })("answering");
    const never = new OnEventOnly("never");
    const manager = new PluginManager([first, new Quiet("quiet"), answering, never]);
    const event = { id: "e1" } as Event;
    const args = { invocationContext: {} as never, event };
    await expect(manager.run("onEventCallback", args)).resolves.toMatchObject({ id: "replaced" });
    expect(first.seen).toEqual(["e1"]);
    expect(never.seen).toEqual([]);
    await expect(manager.run("beforeRunCallback", { invocationContext: {} as never })).resolves.toBeUndefined();
  });

  it("sees a hook given to a plugin after it was registered, and wraps a failing hook in PluginError", async () => {
    const plugin = new Quiet("late");
    const manager = new PluginManager([plugin]);
    expect(manager.hasHook("beforeRunCallback")).toBe(false);
    plugin.beforeRunCallback = async () => {
      throw new Error("boom");
    };
    expect(manager.hasHook("beforeRunCallback")).toBe(true);
    const failure = manager.run("beforeRunCallback", { invocationContext: {} as never });
    await expect(failure).rejects.toBeInstanceOf(PluginError);
    await expect(failure).rejects.toThrow(/Plugin "late" failed in beforeRunCallback: boom/);
  });
});
