// The hot routes read their usual bodies without zod (src/http/plain-body.ts). Whatever a plain
// shape accepts, its zod schema must accept with the same result, and `parseBody` must answer
// every body as the zod schema alone does: checked here on bodies drawn from the keys and values
// clients send, and many they should not.
import { describe, expect, it } from "@jest/globals";
import type { z } from "zod";
import { camelizeKeys } from "@agentkit/core/internal";
import { createSessionSchema, parseBody, runRequestSchema, type HotBodySchema } from "../src/http/request-schemas.js";
import { plainBody } from "../src/http/plain-body.js";
import { HttpRequestError } from "../src/errors/server-errors.js";

/** A small seeded generator (mulberry32): the same bodies on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON texts of values, good and bad for every kind of key. */
const VALUES = [
  "null",
  '""',
  '" "',
  '"a"',
  '"  padded  "',
  '"s-1"',
  "0",
  "1",
  "true",
  "false",
  "{}",
  '{"role":"user","parts":[{"text":"hi"}]}',
  '{"k":1}',
  "[]",
  '[{"a":1}]',
  '"{}"',
];

/** Each schema's keys, the snake_case spellings clients send, and keys no schema knows. */
const RUN_KEYS = [
  "appName",
  "userId",
  "sessionId",
  "newMessage",
  "streaming",
  "stateDelta",
  "functionCallEventId",
  "invocationId",
  "customMetadata",
];
const SESSION_KEYS = ["state", "sessionId", "events"];
const OTHER_KEYS = ["app_name", "session_id", "new_message", "state_delta", "extra", "__proto__", "toString"];

/** A body as a client's JSON gives it: each key with some probability, required ones more often. */
function body(next: () => number, keys: string[], required: string[]): Record<string, unknown> {
  const members: string[] = [];
  for (const key of [...keys, ...OTHER_KEYS]) {
    const chance = required.includes(key) ? 0.9 : OTHER_KEYS.includes(key) ? 0.04 : 0.35;
    if (next() >= chance) continue;
    // Required strings get a good value most of the time, so many bodies pass.
    const value = required.includes(key) && next() < 0.8 ? '"a"' : VALUES[Math.floor(next() * VALUES.length)]!;
    members.push(`${JSON.stringify(key)}:${value}`);
  }
  return JSON.parse(`{${members.join(",")}}`) as Record<string, unknown>;
}

function zodParse<S extends z.ZodType>(schema: HotBodySchema<S>, input: Record<string, unknown>) {
  return schema().safeParse(camelizeKeys(input), { reportInput: true });
}

const CASES = [
  { name: "/run", schema: runRequestSchema, keys: RUN_KEYS, required: ["appName", "userId", "sessionId"] },
  { name: "session create", schema: createSessionSchema, keys: SESSION_KEYS, required: [] },
] as const;

describe("plain bodies of the hot routes", () => {
  for (const { name, schema, keys, required } of CASES) {
    it(`${name}: what the plain shape accepts, zod accepts with the same value`, () => {
      const next = random(name.length * 7919);
      let plainAccepted = 0;
      let zodAccepted = 0;
      for (let i = 0; i < 5000; i++) {
        const input = body(next, [...keys], [...required]);
        const plain = plainBody(schema.plain, input);
        const parsed = zodParse(schema as HotBodySchema<z.ZodType>, input);
        if (parsed.success) zodAccepted++;
        if (plain === undefined) continue;
        plainAccepted++;
        expect(parsed.success).toBe(true);
        expect(plain).toStrictEqual(parsed.data);
        expect(Object.keys(plain)).toEqual(Object.keys(parsed.data as object));
      }
      // Neither side is vacuous: many bodies pass each way, and zod alone takes the rest.
      expect(plainAccepted).toBeGreaterThan(250);
      expect(zodAccepted).toBeGreaterThan(plainAccepted);
    });

    it(`${name}: parseBody answers every body as zod does`, () => {
      const next = random(name.length * 104729);
      const hot = schema as HotBodySchema<z.ZodType>;
      for (let i = 0; i < 3000; i++) {
        const input = body(next, [...keys], [...required]);
        const parsed = zodParse(hot, input);
        if (parsed.success) expect(parseBody(hot, input)).toStrictEqual(parsed.data);
        else expect(() => parseBody(hot, input)).toThrow(HttpRequestError);
      }
    });
  }

  it("keys the schemas know, sent the usual way, never reach zod; others do", () => {
    const runBody = {
      appName: "app",
      userId: "u",
      sessionId: "s",
      newMessage: { role: "user", parts: [{ text: "q" }] },
      streaming: false,
    };
    expect(plainBody(runRequestSchema.plain, runBody)).toStrictEqual(runBody);
    expect(plainBody(createSessionSchema.plain, {})).toStrictEqual({});
    expect(plainBody(createSessionSchema.plain, { sessionId: "  s1 " })).toStrictEqual({ sessionId: "s1" });
    // A snake_case key, an import of events, an inherited key: zod's, which camelizes, copies and reports.
    expect(plainBody(runRequestSchema.plain, { ...runBody, app_name: "x" })).toBeUndefined();
    expect(plainBody(createSessionSchema.plain, { events: [] })).toBeUndefined();
    expect(plainBody(runRequestSchema.plain, Object.create(runBody) as Record<string, unknown>)).toBeUndefined();
    // What zod would refuse is zod's to report, with its message.
    expect(plainBody(runRequestSchema.plain, { ...runBody, userId: "" })).toBeUndefined();
    expect(() => parseBody(runRequestSchema, { ...runBody, userId: "" })).toThrow(
      "Invalid request body: userId: must be a non-empty string",
    );
    expect(() => parseBody(runRequestSchema, { appName: "app", sessionId: "s" })).toThrow(
      "Invalid request body: userId: is required",
    );
  });
});
