import { randomUUID } from "node:crypto";
import { randomUuid } from "../src/events/random-uuid.js";
import { newEventId, newInvocationId } from "../src/events/event.js";
import { generateFunctionCallId } from "../src/flows/function-calling.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("randomUuid", () => {
  it("formats a version 4 UUID as crypto.randomUUID does", () => {
    expect(randomUUID()).toMatch(UUID_V4); // the reference format
    // More than one fill of the pool, so ids from a refilled pool are checked too.
    const ids = Array.from({ length: 1000 }, () => randomUuid());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("puts the prefix in front, whatever its length, and keeps ids apart", () => {
    const long = "a-prefix-longer-than-any-used-in-the-code-base-";
    for (const prefix of ["e-", "adk-", long, "e-"]) {
      const id = randomUuid(prefix);
      expect(id.startsWith(prefix)).toBe(true);
      expect(id.slice(prefix.length)).toMatch(UUID_V4);
    }
  });

  it("every hex digit appears at every free position (the bytes are used, not a constant)", () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) {
      const id = randomUuid();
      for (let at = 0; at < id.length; at++) seen[at]!.add(id[at]!);
    }
    const free = [...Array(36).keys()].filter((at) => ![8, 13, 14, 18, 19, 23].includes(at));
    for (const at of free) expect(seen[at]!.size).toBe(16);
    expect([...seen[14]!]).toEqual(["4"]);
    expect([...seen[19]!].sort()).toEqual(["8", "9", "a", "b"]);
  });

  it("is what event, invocation and function-call ids are made of", () => {
    expect(newEventId()).toMatch(UUID_V4);
    expect(newInvocationId().slice(2)).toMatch(UUID_V4);
    expect(newInvocationId().startsWith("e-")).toBe(true);
    expect(generateFunctionCallId()).toMatch(/^adk-[0-9a-f-]{36}$/);
    expect(generateFunctionCallId().slice(4)).toMatch(UUID_V4);
  });
});
