import { describe, expect, it } from "@jest/globals";
import { AssertionError } from "node:assert";
import { assertExpect, type ContractExpect } from "../src/testing/index.js";

// assertExpect must pass and fail exactly where jest's expect does, for every matcher the
// contract suites use: each case runs through both and the outcomes are compared.
class Base {
  constructor(readonly x = 1) {}
}
class Derived extends Base {}
const nullProto = (entries: Record<string, unknown>) => Object.assign(Object.create(null), entries);
const withProtoKey = JSON.parse('{"__proto__": {"a": 1}, "b": 2}') as Record<string, unknown>;

type Case = [string, (e: ContractExpect) => unknown];
const cases: Case[] = [
  ["toBe same", (e) => e(1).toBe(1)],
  ["toBe other", (e) => e(1).toBe(2)],
  ["toBe NaN", (e) => e(Number.NaN).toBe(Number.NaN)],
  ["toBe -0/0", (e) => e(-0).toBe(0)],
  ["toBe equal objects", (e) => e({}).toBe({})],
  ["not.toBe", (e) => e("a").not.toBe("b")],
  ["not.toBe same", (e) => e("a").not.toBe("a")],
  ["toEqual deep", (e) => e({ a: [1, { b: 2 }] }).toEqual({ a: [1, { b: 2 }] })],
  ["toEqual differs", (e) => e({ a: [1, { b: 2 }] }).toEqual({ a: [1, { b: 3 }] })],
  ["toEqual ignores undefined properties", (e) => e({ a: 1, b: undefined }).toEqual({ a: 1 })],
  ["toEqual ignores object types", (e) => e(new Base(2)).toEqual({ x: 2 })],
  ["toEqual null prototype", (e) => e(nullProto({ a: 1 })).toEqual({ a: 1 })],
  ["toEqual __proto__ key", (e) => e(withProtoKey).toEqual(JSON.parse('{"__proto__": {"a": 1}, "b": 2}'))],
  ["toEqual __proto__ key differs", (e) => e(withProtoKey).toEqual(JSON.parse('{"__proto__": {"a": 2}, "b": 2}'))],
  ["toEqual extra key", (e) => e({ a: 1, b: 2 }).toEqual({ a: 1 })],
  ["toEqual array length", (e) => e([1, 2]).toEqual([1])],
  ["toEqual string vs number", (e) => e("1").toEqual(1)],
  ["toEqual buffers", (e) => e(Buffer.from([1, 2])).toEqual(Buffer.from([1, 2]))],
  ["toEqual dates", (e) => e(new Date(5)).toEqual(new Date(6))],
  ["toMatchObject subset", (e) => e({ a: 1, b: { c: 2, d: 3 } }).toMatchObject({ b: { c: 2 } })],
  ["toMatchObject mismatch", (e) => e({ a: 1, b: { c: 2 } }).toMatchObject({ b: { c: 3 } })],
  ["toMatchObject missing key", (e) => e({ a: 1 }).toMatchObject({ b: undefined })],
  ["toMatchObject empty object", (e) => e({ a: { b: 1 } }).toMatchObject({ a: {} })],
  ["toMatchObject arrays same length", (e) => e({ l: [{ a: 1, b: 2 }] }).toMatchObject({ l: [{ a: 1 }] })],
  ["toMatchObject arrays other length", (e) => e({ l: [1, 2] }).toMatchObject({ l: [1] })],
  ["toMatchObject on an error", (e) => e(Object.assign(new Error("m"), { code: "X" })).toMatchObject({ code: "X" })],
  ["toBeInstanceOf", (e) => e(new Derived()).toBeInstanceOf(Base)],
  ["toBeInstanceOf other", (e) => e(new Base()).toBeInstanceOf(Derived)],
  ["toBeUndefined", (e) => e(undefined).toBeUndefined()],
  ["toBeUndefined null", (e) => e(null).toBeUndefined()],
  ["toBeDefined", (e) => e(null).toBeDefined()],
  ["toBeDefined undefined", (e) => e(undefined).toBeDefined()],
  ["toHaveLength", (e) => e([1, 2]).toHaveLength(2)],
  ["toHaveLength other", (e) => e("abc").toHaveLength(2)],
  ["toBeGreaterThan", (e) => e(2).toBeGreaterThan(1)],
  ["toBeGreaterThan equal", (e) => e(1).toBeGreaterThan(1)],
  ["toBeGreaterThanOrEqual", (e) => e(1).toBeGreaterThanOrEqual(1)],
  ["toBeGreaterThanOrEqual less", (e) => e(0).toBeGreaterThanOrEqual(1)],
  ["toBeLessThanOrEqual", (e) => e(1).toBeLessThanOrEqual(1)],
  ["toBeLessThanOrEqual more", (e) => e(2).toBeLessThanOrEqual(1)],
  ["rejects.toBeInstanceOf", (e) => e(Promise.reject(new Derived())).rejects.toBeInstanceOf(Base)],
  ["rejects.toBeInstanceOf other", (e) => e(Promise.reject(new Base())).rejects.toBeInstanceOf(Derived)],
  ["rejects on a resolved promise", (e) => e(Promise.resolve(new Base())).rejects.toBeInstanceOf(Base)],
  [
    "rejects.toMatchObject",
    (e) => e(Promise.reject(Object.assign(new Error(), { code: 1 }))).rejects.toMatchObject({ code: 1 }),
  ],
  ["rejects.toMatchObject other", (e) => e(Promise.reject(new Error("x"))).rejects.toMatchObject({ code: 1 })],
  ["resolves.toBeUndefined", (e) => e(Promise.resolve(undefined)).resolves.toBeUndefined()],
  ["resolves.toBeUndefined value", (e) => e(Promise.resolve(0)).resolves.toBeUndefined()],
  ["resolves on a rejected promise", (e) => e(Promise.reject(new Error("x"))).resolves.toBeUndefined()],
];

async function outcome(run: () => unknown): Promise<"pass" | "fail"> {
  try {
    await run();
    return "pass";
  } catch {
    return "fail";
  }
}

describe("assertExpect", () => {
  it.each(cases)("agrees with jest's expect: %s", async (_, check) => {
    const jest = await outcome(() => check(expect as unknown as ContractExpect));
    expect(await outcome(() => check(assertExpect))).toBe(jest);
  });

  it("covers both outcomes of every matcher", async () => {
    const outcomes = await Promise.all(cases.map(([, check]) => outcome(() => check(assertExpect))));
    expect(outcomes.filter((o) => o === "pass").length).toBeGreaterThan(15);
    expect(outcomes.filter((o) => o === "fail").length).toBeGreaterThan(15);
  });

  it("fails with node:assert's AssertionError and a message naming the values", async () => {
    const error = await Promise.resolve()
      .then(() => assertExpect(3).toBeGreaterThan(5))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AssertionError);
    expect((error as Error).message).toBe("expected 3 > 5");
    const rejected = await assertExpect(Promise.resolve(1))
      .rejects.toBeUndefined()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((rejected as Error).message).toBe("expected the promise to reject, but it resolved");
  });

  it("is what jest's expect is, as far as the contract suites' types go", () => {
    const asContract: ContractExpect = expect;
    expect(typeof asContract).toBe("function");
  });
});
