import { describe, expect, it } from "@jest/globals";
import { ConfigurationError, ModelRegistry } from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";

class ClosableModel extends ScriptedModel {
  closed = 0;
  override async close(): Promise<void> {
    this.closed += 1;
  }
}

describe("ModelRegistry", () => {
  it("resolves names through regex and anchored string patterns", () => {
    const registry = new ModelRegistry()
      .register(/^gemini-/, (name) => new ScriptedModel({ model: `g:${name}` }))
      .register("claude-.*", (name) => new ScriptedModel({ model: `c:${name}` }));
    expect(registry.resolve("gemini-2.5-flash").model).toBe("g:gemini-2.5-flash");
    expect(registry.resolve("claude-sonnet-4").model).toBe("c:claude-sonnet-4");
    expect(registry.has("claude-x")).toBe(true);
    // String patterns match the whole name.
    expect(registry.has("my-claude-x")).toBe(false);
    expect(registry.has("gpt-4o")).toBe(false);
  });

  it("builds one instance per name", () => {
    let built = 0;
    const registry = new ModelRegistry().register(/^m-/, (name) => {
      built += 1;
      return new ScriptedModel({ model: name });
    });
    const first = registry.resolve("m-1");
    expect(registry.resolve("m-1")).toBe(first);
    expect(registry.resolve("m-2")).not.toBe(first);
    expect(built).toBe(2);
  });

  it("throws a ConfigurationError listing the patterns for an unknown name", () => {
    const registry = new ModelRegistry()
      .register(/^gemini-/, (n) => new ScriptedModel({ model: n }))
      .register(/^gpt-/, (n) => new ScriptedModel({ model: n }));
    expect(() => registry.resolve("llama-3")).toThrow(ConfigurationError);
    expect(() => registry.resolve("llama-3")).toThrow(/"llama-3".*\/\^gpt-\/, \/\^gemini-\//);
    expect(() => new ModelRegistry().resolve("x")).toThrow(/\(none registered\)/);
  });

  it("lets a later registration win over an earlier one", () => {
    const registry = new ModelRegistry().register(/^gemini-/, (n) => new ScriptedModel({ model: `old:${n}` }));
    expect(registry.resolve("gemini-pro").model).toBe("old:gemini-pro");
    registry.register(/^gemini-pro$/, (n) => new ScriptedModel({ model: `new:${n}` }));
    expect(registry.resolve("gemini-pro").model).toBe("new:gemini-pro");
    expect(registry.resolve("gemini-flash").model).toBe("old:gemini-flash");
    expect(registry.patterns().map(String)).toEqual(["/^gemini-pro$/", "/^gemini-/"]);
  });

  it("is not confused by global regexes (lastIndex)", () => {
    const registry = new ModelRegistry().register(/^a/g, (n) => new ScriptedModel({ model: n }));
    expect(registry.has("abc")).toBe(true);
    expect(registry.has("abc")).toBe(true);
    expect(registry.resolve("abd").model).toBe("abd");
  });

  it("close closes every model it created, including ones built before a later registration", async () => {
    const created: ClosableModel[] = [];
    const registry = new ModelRegistry().register(/.*/, (n) => {
      const m = new ClosableModel({ model: n });
      created.push(m);
      return m;
    });
    registry.resolve("a");
    registry.resolve("b");
    registry.register(/^c$/, (n) => {
      const m = new ClosableModel({ model: n });
      created.push(m);
      return m;
    });
    registry.resolve("c");
    await registry.close();
    expect(created.map((m) => [m.model, m.closed])).toEqual([
      ["a", 1],
      ["b", 1],
      ["c", 1],
    ]);
    // After close, a name resolves to a fresh instance.
    expect(registry.resolve("a")).not.toBe(created[0]);
  });

  it("has() also checks the names a registration depends on, and refuses a name made of itself", () => {
    const model = new ScriptedModel();
    const registry = new ModelRegistry()
      .register(/^base-/, () => model)
      .register(/^pair:/, () => model, {
        dependencies: (name) => {
          const parts = name.slice("pair:".length).split("+");
          if (parts.some((p) => p === "")) throw new Error("empty part");
          return parts;
        },
      });
    expect(registry.has("pair:base-a+base-b")).toBe(true);
    expect(registry.has("pair:base-a+other")).toBe(false);
    expect(registry.has("pair:base-a+")).toBe(false);
    expect(registry.has("pair:pair:base-a")).toBe(true);
    const loop = new ModelRegistry().register(/^self$/, () => model, { dependencies: () => ["self"] });
    expect(loop.has("self")).toBe(false);
  });
});
