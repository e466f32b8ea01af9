import { describe, expect, it } from "@jest/globals";
import { snakeToCamel, toCamelCase, toSnakeCase } from "../../src/internal.js";

describe("key case conversion", () => {
  it("converts field names and leaves user data and unspelled names alone", () => {
    expect(snakeToCamel("function_call")).toBe("functionCall");
    expect(snakeToCamel("functionCall")).toBe("functionCall");
    // A leading or doubled underscore is not a snake_case spelling.
    expect(snakeToCamel("_meta")).toBe("_meta");
    expect(snakeToCamel("__proto__")).toBe("__proto__");
    expect(
      toCamelCase({ function_call: { name: "f", args: { snake_key: 1 } }, usage_metadata: { total_token_count: 3 } }),
    ).toEqual({ functionCall: { name: "f", args: { snake_key: 1 } }, usageMetadata: { totalTokenCount: 3 } });
  });

  it("copies a `__proto__` key as an own key, at every level, instead of re-parenting the copy", () => {
    const raw = JSON.parse(
      '{"__proto__":{"polluted":true},"parts":[{"__proto__":{"text":"x"}}],"args":{"__proto__":1}}',
    );
    for (const converted of [toCamelCase(raw), toSnakeCase(raw)] as Record<string, unknown>[]) {
      expect(Object.getPrototypeOf(converted)).toBe(Object.prototype);
      expect(converted.polluted).toBeUndefined();
      expect(Object.keys(converted)).toEqual(["__proto__", "parts", "args"]);
      const part = (converted.parts as Record<string, unknown>[])[0]!;
      expect(Object.getPrototypeOf(part)).toBe(Object.prototype);
      expect(part.text).toBeUndefined();
      expect(Object.keys(part)).toEqual(["__proto__"]);
    }
  });
});
