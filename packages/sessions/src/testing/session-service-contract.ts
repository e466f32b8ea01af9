import type { BaseSessionService } from "@agentkit/core";
import { checkContractTestApi, useContractSubject } from "@agentkit/core/testing";
import type { ContractFactory, ContractTestApi } from "./contract-harness.js";
import { defineSessionAppendContract, type SessionContractOptions } from "./session-append-contract.js";
import { defineSessionLifecycleContract } from "./session-lifecycle-contract.js";

/**
 * The behaviour every `BaseSessionService` must have. Call it at the top level of a test file
 * with your framework's test functions (`{ describe, it, expect, beforeEach, afterEach }`: jest,
 * vitest, or node:test with `assertExpect`); `factory` runs before each test and `cleanup` (or
 * `service.close()`) after it. Each test uses its own unique app name, so backends may share
 * one store across tests.
 */
export function runSessionServiceContract(
  name: string,
  factory: ContractFactory<BaseSessionService>,
  test: ContractTestApi,
  options: SessionContractOptions = {},
): void {
  checkContractTestApi("runSessionServiceContract", test);
  test.describe(`${name} (session service contract)`, () => {
    const ctx = useContractSubject(factory, test);
    defineSessionLifecycleContract(ctx, test);
    defineSessionAppendContract(ctx, test, options);
  });
}
