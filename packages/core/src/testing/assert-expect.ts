import assert from "node:assert/strict";
import { setOwn } from "../sessions/own-keys.js";
import type { ContractAsyncMatchers, ContractExpect, ContractMatchers } from "./contract-test-api.js";

type Constructor = abstract new (...args: never[]) => unknown;

/**
 * `expect` for the contract suites on `node:test` (or any runner without one), built on
 * `node:assert` with jest's meaning: `toEqual` ignores `undefined` properties and object types,
 * `toMatchObject` checks a recursive subset (arrays element by element, same length).
 */
export const assertExpect: ContractExpect = (actual) => ({
  ...matchers(actual),
  rejects: asyncMatchers(async () => {
    try {
      await actual;
    } catch (error) {
      return error;
    }
    throw new assert.AssertionError({ message: "expected the promise to reject, but it resolved", actual });
  }),
  resolves: asyncMatchers(async () => await actual),
});

function matchers(actual: unknown): ContractMatchers {
  return {
    toBe: (expected) => assert.equal(actual, expected),
    toEqual: (expected) => assert.deepEqual(comparable(actual), comparable(expected)),
    toMatchObject: (expected) => assert.deepEqual(projectOnto(actual, expected), comparable(expected)),
    toBeInstanceOf: (expected: Constructor) =>
      assert.ok(actual instanceof expected, `expected an instance of ${expected.name}, got ${show(actual)}`),
    toBeUndefined: () => assert.equal(actual, undefined),
    toBeDefined: () => assert.notEqual(actual, undefined),
    toHaveLength: (expected) => assert.equal((actual as { length?: unknown } | null | undefined)?.length, expected),
    toBeGreaterThan: (n) => assert.ok((actual as number) > n, `expected ${show(actual)} > ${n}`),
    toBeGreaterThanOrEqual: (n) => assert.ok((actual as number) >= n, `expected ${show(actual)} >= ${n}`),
    toBeLessThanOrEqual: (n) => assert.ok((actual as number) <= n, `expected ${show(actual)} <= ${n}`),
    not: { toBe: (expected) => assert.notEqual(actual, expected) },
  };
}

function asyncMatchers(settle: () => Promise<unknown>): ContractAsyncMatchers {
  return {
    toBeInstanceOf: async (expected) => void matchers(await settle()).toBeInstanceOf(expected),
    toMatchObject: async (expected) => void matchers(await settle()).toMatchObject(expected),
    toBeUndefined: async () => void matchers(await settle()).toBeUndefined(),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !ArrayBuffer.isView(v) && !(v instanceof Date) && !(v instanceof RegExp);

/** A plain copy without `undefined` properties, as jest's `toEqual` compares. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (!isRecord(value) || value instanceof Map || value instanceof Set) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) setOwn(out, key, comparable(v));
  return out;
}

/** Stands for a key `actual` lacks: never equal to anything `expected` holds (even `undefined`). */
const MISSING = Symbol("missing");

/** `actual` reduced to the keys `expected` names, so a deep comparison checks a subset. */
function projectOnto(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected))
    return Array.isArray(actual) && actual.length === expected.length
      ? actual.map((v, i) => projectOnto(v, expected[i]))
      : comparable(actual);
  if (!isRecord(expected) || !isRecord(actual) || Array.isArray(actual)) return comparable(actual);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(expected))
    setOwn(out, key, key in actual ? projectOnto(actual[key], expected[key]) : MISSING);
  return comparable(out);
}

function show(value: unknown): string {
  if (typeof value === "object" && value !== null) return value.constructor?.name ?? "object";
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}
