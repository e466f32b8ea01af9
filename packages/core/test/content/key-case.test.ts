import { describe, expect, it } from "@jest/globals";
import { camelizeKeys, snakeToCamel, toCamelCase, toSnakeCase } from "../../src/internal.js";

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

  it("camelizeKeys renames the top level only; the camelCase spelling wins in either order", () => {
    expect(camelizeKeys({ app_name: "a", new_message: { role_name: "x" } })).toEqual({
      appName: "a",
      newMessage: { role_name: "x" },
    });
    expect(camelizeKeys({ max_tokens: 1, maxTokens: 2 })).toEqual({ maxTokens: 2 });
    expect(camelizeKeys({ maxTokens: 2, max_tokens: 1 })).toEqual({ maxTokens: 2 });
    // An inherited name is no spelling already present; `__proto__` stays an own key.
    const raw = JSON.parse('{"to_string":1,"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const out = camelizeKeys(raw);
    expect(Object.hasOwn(out, "toString") && out.toString).toBe(1);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: true });
  });
});
