import { describe } from "@jest/globals";
import type { BaseSessionService } from "@agentkit/core";
import { useContractSubject, type ContractFactory } from "./contract-harness.js";
import { defineSessionAppendContract, type SessionContractOptions } from "./session-append-contract.js";
import { defineSessionLifecycleContract } from "./session-lifecycle-contract.js";

/**
 * The behaviour every `BaseSessionService` must have. Call it at the top level of a test
 * file; `factory` runs before each test and `cleanup` (or `service.close()`) after it. Each
 * test uses its own unique app name, so backends may share one store across tests.
 */
export function runSessionServiceContract(
  name: string,
  factory: ContractFactory<BaseSessionService>,
  options: SessionContractOptions = {},
): void {
  describe(`${name} (session service contract)`, () => {
    const ctx = useContractSubject(factory);
    defineSessionLifecycleContract(ctx);
    defineSessionAppendContract(ctx, options);
  });
}
