import { describe, expect, it } from "@jest/globals";
import { copyWithRoom } from "../../src/internal.js";

describe("copyWithRoom", () => {
  it.each([0, 1, 5, 255, 256, 20_000])(
    "copies %i items into a new array of the same length, independent of the source",
    (n) => {
      const items = Array.from({ length: n }, (_, i) => ({ i }));
      const copy = copyWithRoom(items);
      expect(copy).not.toBe(items);
      expect(copy).toHaveLength(n);
      expect(copy).toEqual(items);
      expect(n in copy).toBe(false);
      expect(Object.keys(copy)).toHaveLength(n);
      if (n > 0) expect(copy[n - 1]).toBe(items[n - 1]); // shallow: the same items
      copy.push({ i: -1 }, { i: -2 });
      expect(items).toHaveLength(n);
      expect(copy.slice(n)).toEqual([{ i: -1 }, { i: -2 }]);
      expect(JSON.stringify(copy.slice(0, n))).toBe(JSON.stringify(items));
    },
  );

  it("keeps items that are arrays as items, and copies frozen arrays into a writable one", () => {
    const items = Object.freeze([[1, 2], [3]]);
    const copy = copyWithRoom(items);
    expect(copy).toEqual([[1, 2], [3]]);
    copy.push([4]);
    expect(copy).toHaveLength(3);
    expect(items).toHaveLength(2);
  });
});
