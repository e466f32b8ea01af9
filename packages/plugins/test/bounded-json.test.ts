// The analytics row writes `content` only as far as its cut; the text must be exactly the head of
// what the whole value's JSON was, in both modes, for any value a row can hold.
import { describe, expect, it } from "@jest/globals";
import { SeededRandom } from "@agentkit/test-support/seeded-random";
import { safeStringify } from "../src/analytics/abortable.js";
import { boundedJson } from "../src/analytics/bounded-json.js";
import { stripBinary } from "../src/analytics/strip-binary.js";

/** What the row held before: the whole value's JSON, then cut. */
function reference(value: unknown, limit: number, strip: boolean): { text: string | null; truncated: boolean } {
  const text = safeStringify(strip ? stripBinary(value) : value) as string | undefined;
  if (text === undefined) return { text: null, truncated: false };
  return text.length > limit ? { text: text.slice(0, limit), truncated: true } : { text, truncated: false };
}

const PIECES = ["a", "é", "\u{1F600}", "\ud83d", "\ude00", '"', "\\", "\n", "\u0001", "\u2028", " ", "text"];

function randomString(rng: SeededRandom): string {
  let out = "";
  const n = rng.int(rng.chance(0.1) ? 400 : 12);
  for (let i = 0; i < n; i++) out += PIECES[rng.int(PIECES.length)]!;
  return out;
}

function randomValue(rng: SeededRandom, depth: number): unknown {
  const kind = rng.int(depth > 3 ? 7 : 12);
  switch (kind) {
    case 0:
      return randomString(rng);
    case 1:
      return [0, -0, 1.5, -42, 1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY][rng.int(8)];
    case 2:
      return rng.chance(0.5);
    case 3:
      return null;
    case 4:
      return [undefined, () => 1, Symbol("s")][rng.int(3)];
    case 5:
      return BigInt(rng.int(1_000_000)) * 10n ** 20n;
    case 6:
      return new Date(Date.UTC(2026, 10, 30, rng.int(24)));
    case 7:
    case 8: {
      const items = Array.from({ length: rng.int(6) }, () => randomValue(rng, depth + 1));
      if (rng.chance(0.1)) items.length += 2; // holes
      return items;
    }
    case 9:
      return { mimeType: "image/png", data: "QUJD".repeat(rng.int(50)) };
    case 10:
      return [new String("boxed"), new Number(7), new Boolean(false)][rng.int(3)];
    default: {
      const record: Record<string, unknown> = {};
      const keys = ["role", "parts", "text", "inlineData", "functionCall", "args", "__proto__", "9", 'k"ey'];
      for (let i = rng.int(6); i > 0; i--) {
        Object.defineProperty(record, keys[rng.int(keys.length)]!, {
          value: randomValue(rng, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return record;
    }
  }
}

describe("boundedJson", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("is the head of the whole value's JSON, stripped or not (seed %i)", (seed) => {
    const rng = new SeededRandom(seed);
    for (let round = 0; round < 150; round++) {
      const value = randomValue(rng, 0);
      const strip = rng.chance(0.5);
      const whole = reference(value, Number.MAX_SAFE_INTEGER, strip).text ?? "";
      // Every cut of a short value (each position inside a string, an escape, a surrogate pair).
      const limits =
        whole.length <= 120
          ? Array.from({ length: whole.length + 2 }, (_, i) => i + 1)
          : [1, 2, 3, 7, 20, 64, whole.length - 1, whole.length, whole.length + 3];
      for (const limit of limits) {
        expect({ limit, strip, ...boundedJson(value, limit, strip) }).toEqual({
          limit,
          strip,
          ...reference(value, limit, strip),
        });
      }
    }
  });

  it("writes a value inside itself as [Circular], and the same object met twice elsewhere twice", () => {
    const shared = { text: "same" };
    const loop: Record<string, unknown> = { parts: [shared, shared] };
    loop.self = loop;
    for (const strip of [true, false]) {
      expect(boundedJson(loop, 1000, strip)).toEqual(reference(loop, 1000, strip));
      expect(boundedJson(loop, 1000, strip).text).toBe(
        '{"parts":[{"text":"same"},{"text":"same"}],"self":"[Circular]"}',
      );
    }
  });

  it("writes a key named __proto__ as a key (the stripped copy keeps it too)", () => {
    const value = JSON.parse('{"args":{"__proto__":{"polluted":true},"q":"x"}}') as unknown;
    const stripped = stripBinary(value) as { args: object };
    expect(Object.getPrototypeOf(stripped.args)).toBe(Object.prototype);
    expect(Object.keys(stripped.args)).toEqual(["__proto__", "q"]);
    for (const strip of [true, false])
      expect(boundedJson(value, 1000, strip).text).toBe('{"args":{"__proto__":{"polluted":true},"q":"x"}}');
  });

  it("reads no further than the cut: the first items of a 10,000-content history", () => {
    let reads = 0;
    const contents = Array.from({ length: 10_000 }, (_, i) => ({ role: "user", parts: [{ text: `question ${i}` }] }));
    const counted = new Proxy(contents, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const value = { systemInstruction: "Answer.", contents: counted };
    const { text, truncated } = boundedJson(value, 500, true);
    expect(truncated).toBe(true);
    expect(text).toBe(reference({ systemInstruction: "Answer.", contents }, 500, true).text);
    expect(reads).toBeLessThan(20);
  });
});
