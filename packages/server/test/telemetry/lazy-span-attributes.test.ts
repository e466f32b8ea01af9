import { describe, expect, it } from "@jest/globals";
import { LazySpanAttributes } from "../../src/telemetry/lazy-span-attributes.js";

describe("LazySpanAttributes", () => {
  it("writes every attribute of a span on read, in the order set, and counts their bytes", () => {
    const lazy = new LazySpanAttributes();
    lazy.set("s1", "first", (max) => `"a${max}"`, 10);
    lazy.set("s1", "second", () => '"b"', 5);
    lazy.set("s2", "first", { write: (max) => `"c${max}"` }, 7);
    expect(lazy.resolve("s1", 3)).toEqual({ first: '"a3"', second: '"b"' });
    expect(lazy.resolve("s2", 4)).toEqual({ first: '"c4"' });
    expect(Object.keys(lazy.resolve("s1", 3))).toEqual(["first", "second"]);
    expect([lazy.bytesOf("s1"), lazy.bytesOf("s2"), lazy.bytesOf("none")]).toEqual([15, 7, 0]);
    expect(lazy.resolve("none", 3)).toEqual({});
  });

  it("replaces an attribute set again, bytes included, and forgets a deleted span", () => {
    const lazy = new LazySpanAttributes();
    lazy.set("s1", "first", () => '"old"', 10);
    lazy.set("s1", "second", () => '"b"', 5);
    lazy.set("s1", "first", () => '"new"', 3);
    expect(lazy.resolve("s1", 100)).toEqual({ first: '"new"', second: '"b"' });
    expect(lazy.bytesOf("s1")).toBe(8);
    lazy.delete("s1");
    expect([lazy.resolve("s1", 100), lazy.bytesOf("s1")]).toEqual([{}, 0]);
  });
});
