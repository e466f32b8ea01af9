import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { lazySchema, lazySchemasBuilt } from "../src/internal.js";

describe("lazySchema", () => {
  it("builds the schema at its first use, once, and returns that same schema after", () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.object({ name: z.string().min(1) });
    });
    expect(builds).toBe(0);
    const first = schema();
    expect(builds).toBe(1);
    expect(schema()).toBe(first);
    expect(builds).toBe(1);
    expect(first.safeParse({ name: "a" }).success).toBe(true);
    expect(first.safeParse({ name: "" }).success).toBe(false);
  });

  it("counts each schema once, when it is built", () => {
    const before = lazySchemasBuilt();
    const a = lazySchema(() => z.string());
    const b = lazySchema(() => z.number());
    expect(lazySchemasBuilt()).toBe(before);
    a();
    a();
    expect(lazySchemasBuilt()).toBe(before + 1);
    b();
    expect(lazySchemasBuilt()).toBe(before + 2);
  });
});
