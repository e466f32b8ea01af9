// Contract suites for session and memory backends. They take the test functions of the
// framework that runs them (jest, vitest, node:test + assertExpect) and depend on none.
export { runSessionServiceContract } from "./session-service-contract.js";
export { runMemoryServiceContract } from "./memory-service-contract.js";
export { createFullEvent } from "./full-event.js";
export { assertExpect } from "@agentkit/core/testing";
export type { ContractFactory, ContractSubject, ContractTestApi } from "./contract-harness.js";
export type { SessionContractOptions } from "./session-append-contract.js";
