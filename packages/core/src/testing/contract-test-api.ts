import { ConfigurationError } from "../errors/agentkit-error.js";
import type { TestHooks } from "./contract-subject.js";

/**
 * The matchers the contract suites use: a subset of jest's and vitest's `expect`, so either
 * framework's `expect` fits as is; `assertExpect` implements it with `node:assert` for `node:test`.
 */
export interface ContractMatchers {
  toBe(expected: unknown): unknown;
  toEqual(expected: unknown): unknown;
  toMatchObject(expected: object): unknown;
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): unknown;
  toBeUndefined(): unknown;
  toBeDefined(): unknown;
  toHaveLength(expected: number): unknown;
  toBeGreaterThan(expected: number): unknown;
  toBeGreaterThanOrEqual(expected: number): unknown;
  toBeLessThanOrEqual(expected: number): unknown;
  readonly not: { toBe(expected: unknown): unknown };
}

/** Matchers applied to what a promise rejects with (`rejects`) or resolves to (`resolves`). */
export interface ContractAsyncMatchers {
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): PromiseLike<unknown>;
  toMatchObject(expected: object): PromiseLike<unknown>;
  toBeUndefined(): PromiseLike<unknown>;
}

/** An `expect` function with the matchers above. */
export type ContractExpect = (actual: unknown) => ContractMatchers & {
  readonly rejects: ContractAsyncMatchers;
  readonly resolves: ContractAsyncMatchers;
};

/**
 * The test functions a contract suite registers its tests with, taken from the framework that
 * runs it: `{ describe, it, expect, beforeEach, afterEach }` from `@jest/globals` or `vitest`, or
 * `describe`/`it`/hooks from `node:test` with `expect: assertExpect`.
 */
export interface ContractTestApi extends TestHooks {
  describe(name: string, fn: () => void): unknown;
  it(name: string, fn: () => Promise<void>): unknown;
  expect: ContractExpect;
}

const TEST_FUNCTIONS = ["describe", "it", "expect", "beforeEach", "afterEach"] as const;

/** Fails early, with what is missing, when a suite is handed something else than test functions. */
export function checkContractTestApi(suite: string, test: ContractTestApi): ContractTestApi {
  const missing = TEST_FUNCTIONS.filter(
    (name) => typeof (test as unknown as Record<string, unknown> | undefined)?.[name] !== "function",
  );
  if (missing.length > 0)
    throw new ConfigurationError(
      `${suite} needs the test functions of your framework, e.g. { describe, it, expect, beforeEach, afterEach } from "@jest/globals"; missing: ${missing.join(", ")}`,
    );
  return test;
}
