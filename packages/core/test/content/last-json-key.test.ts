import { describe, expect, it } from "@jest/globals";
import { LastJsonKey } from "../../src/content/last-json-key.js";

describe("LastJsonKey", () => {
  it("gives JSON.stringify's key for every list, whether it repeats the last one or not", () => {
    const keys = new LastJsonKey();
    const lists: string[][] = [
      ["app", "u", "s1"],
      ["app", "u", "s1"],
      ["app", "u", "s2"],
      ["app", "u"],
      ["app", "u", "s2"],
      ["app", "u", "s2", "", "agent"],
      ["app", "u", "s2", "b", "agent"],
      [],
      [],
      ['a"b', "\\", "__proto__"],
      ['a"b', "\\", "__proto__"],
      ["a", "bc"],
      ["ab", "c"],
    ];
    for (const parts of lists) expect(keys.of([...parts])).toBe(JSON.stringify(parts));
  });
});
