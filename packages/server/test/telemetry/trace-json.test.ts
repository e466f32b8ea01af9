import { describe, expect, it } from "@jest/globals";
import { toJsonString } from "../../src/telemetry/trace-json.js";

describe("toJsonString", () => {
  it("writes an object met twice in full, also when the value holds a real cycle elsewhere", () => {
    const shared = Object.freeze({ promptTokenCount: 10, totalTokenCount: 15 });
    const loop: Record<string, unknown> = { name: "loop" };
    loop.self = loop;
    const value = { a: shared, b: [shared, { again: shared }], loop };
    expect(JSON.parse(toJsonString(value))).toEqual({
      a: { promptTokenCount: 10, totalTokenCount: 15 },
      b: [{ promptTokenCount: 10, totalTokenCount: 15 }, { again: { promptTokenCount: 10, totalTokenCount: 15 } }],
      loop: { name: "loop", self: "<cycle>" },
    });
  });

  it("leaves out functions and signals, writes BigInt as text and elides long inline data", () => {
    const value = {
      f: () => 1,
      signal: new AbortController().signal,
      n: 12n,
      data: "A".repeat(300),
      short: { data: "AAAA" },
    };
    expect(JSON.parse(toJsonString(value))).toEqual({
      n: "12",
      data: "<300 base64 characters>",
      short: { data: "AAAA" },
    });
  });

  it("replaces a value longer than the limit by a small object holding its head", () => {
    const parsed = JSON.parse(toJsonString({ text: "x".repeat(500) }, 200)) as {
      truncated: boolean;
      length: number;
      head: string;
    };
    expect(parsed.truncated).toBe(true);
    expect(parsed.length).toBe(JSON.stringify({ text: "x".repeat(500) }).length);
    expect(parsed.head.length).toBeLessThanOrEqual(200);
  });
});
