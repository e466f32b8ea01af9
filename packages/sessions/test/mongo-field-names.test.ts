import { describe, expect, it } from "@jest/globals";
import { decodeKey, decodeKeys, encodeKey, encodeKeys } from "../src/mongodb/field-names.js";

describe("MongoDB field-name escaping", () => {
  it.each([
    ["plain", "plain"],
    ["a.b", "a%2Eb"],
    ["$ref", "%24ref"],
    ["100%", "100%25"],
    ["__proto__", "%5F_proto__"],
    ["x__proto__", "x__proto__"],
    ["%5F", "%255F"],
  ])("%s is stored as %s and read back unchanged", (key, stored) => {
    expect(encodeKey(key)).toBe(stored);
    expect(decodeKey(stored)).toBe(key);
  });

  it("keeps __proto__ as an own key through a nested encode/decode", () => {
    const value = JSON.parse('{"__proto__": {"__proto__": 1, "a.b": [{"$x": 2}]}}') as Record<string, unknown>;
    const encoded = encodeKeys(value) as Record<string, unknown>;
    expect(Object.keys(encoded)).toEqual(["%5F_proto__"]);
    const decoded = decodeKeys(encoded) as Record<string, unknown>;
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(value));
    expect(Object.keys(decoded)).toEqual(["__proto__"]);
  });
});
